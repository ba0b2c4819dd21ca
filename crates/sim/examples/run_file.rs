//! Run a scenario file with the engine alone (no Python): for benchmarks.
//!
//! `run_file SCENARIO.toml|SCENARIO.json SEED [dotted.key=JSON ...]`
//! prints the result JSON. Python-only tables (`[sweep]`, `[report]`,
//! `[campaign]`, `scenario.seeds`) are dropped; overrides take JSON values
//! (`wlan.stations=50`, `phy.standard="802.11g"`).
#[path = "common/doc.rs"]
mod doc;

use doc::fail;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(path), Some(seed)) = (args.first(), args.get(1).and_then(|s| s.parse::<u64>().ok())) else {
        eprintln!("usage: run_file SCENARIO.toml SEED [dotted.key=JSON ...]");
        std::process::exit(2);
    };
    let doc = doc::load(path, &args[2..]);
    match wifitcp_sim::api::run_json(&doc.to_string(), seed) {
        Ok(r) => println!("{r}"),
        Err(e) => fail(&format!("{path}: {e}")),
    }
}
