// Rust built with -C panic=abort: Option::expect on a None from a lookup. The panic hook prints the
// message and the process aborts inside std.
use std::collections::HashMap;

#[inline(never)]
fn port_for(services: &HashMap<&str, u16>, name: &str) -> u16 {
    *services.get(name).expect("service must be configured")
}

fn main() {
    let mut services = HashMap::new();
    services.insert("http", 80u16);
    let name = if std::env::args().count() > 5 { "http" } else { "metrics" };
    println!("{}", port_for(&services, name));
}
