// Rust built with -C panic=abort: Result::unwrap on a parse error.
#[inline(never)]
fn parse_limit(text: &str) -> u32 {
    text.trim().parse::<u32>().unwrap()
}

fn main() {
    let input = if std::env::args().count() > 5 { "10" } else { "ten" };
    println!("{}", parse_limit(input));
}
