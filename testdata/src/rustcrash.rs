// Rust frames (issue 10): an unsafe NULL dereference ("null") and a panic through unwrap() on None
// ("unwrap"), both in user functions behind generic and closure frames; built with -C panic=abort.
use std::env;

struct Inventory {
    counts: Vec<Option<u32>>,
}

impl Inventory {
    #[inline(never)]
    fn count_of(&self, i: usize) -> u32 {
        self.counts[i].unwrap()
    }
}

#[inline(never)]
fn read_slot(p: *const u64) -> u64 {
    unsafe { std::ptr::read_volatile(p) }
}

#[inline(never)]
fn visit<F: Fn(usize) -> u64>(n: usize, f: F) -> u64 {
    (0..n).map(|i| f(i)).sum()
}

fn main() {
    let mode = env::args().nth(1).unwrap_or_default();
    let inv = Inventory { counts: vec![Some(1), Some(2), None] };
    let slots: Vec<*const u64> = vec![&7u64, std::ptr::null()];
    let total = if mode == "null" {
        visit(slots.len(), |i| read_slot(slots[i]))
    } else {
        visit(inv.counts.len(), |i| inv.count_of(i) as u64)
    };
    println!("{}", total);
}
