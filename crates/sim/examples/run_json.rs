//! Run a scenario given as JSON on stdin: `cargo run --release --example run_json -- SEED < scenario.json`.
use std::io::Read;
fn main() {
    let seed: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).expect("stdin");
    if let Some(m) = std::env::args().nth(2) {
        println!("{}", wifitcp_sim::api::phy_timing_json(&s, m.parse().expect("msdu")).expect("timing"));
        return;
    }
    match wifitcp_sim::api::run_json(&s, seed) {
        Ok(r) => println!("{r}"),
        Err(e) => {
            eprintln!("error: {e:?}");
            std::process::exit(2);
        }
    }
}
