//! Run a scenario file with the engine alone (no Python): for benchmarks.
//!
//! `run_file [--trace=DIR] SCENARIO.toml|SCENARIO.json SEED [dotted.key=JSON ...]`
//! prints the result JSON (`--trace=DIR`: also the per-packet trace, as
//! `wifitcp run --trace DIR` writes it). Python-only tables (`[sweep]`, `[report]`,
//! `[campaign]`, `scenario.seeds`) are dropped; overrides take JSON values
//! (`wlan.stations=50`, `phy.standard="802.11g"`).
#[path = "common/doc.rs"]
mod doc;

use doc::fail;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let trace = args.first().and_then(|a| a.strip_prefix("--trace=")).map(std::path::PathBuf::from);
    if trace.is_some() {
        args.remove(0);
    }
    let (Some(path), Some(seed)) = (args.first(), args.get(1).and_then(|s| s.parse::<u64>().ok())) else {
        eprintln!("usage: run_file SCENARIO.toml SEED [dotted.key=JSON ...]");
        std::process::exit(2);
    };
    let doc = doc::load(path, &args[2..]);
    let result = match trace {
        None => wifitcp_sim::api::run_json(&doc.to_string(), seed),
        Some(dir) => {
            let opts = wifitcp_sim::api::RunOptions { trace_dir: Some(dir), ..Default::default() };
            wifitcp_sim::api::run_json_with(&doc.to_string(), seed, &opts, wifitcp_sim::api::CHUNK_WALL, |_| {
                wifitcp_sim::api::Control::Continue
            })
            .map(|r| r.expect("not stopped"))
        }
    };
    match result {
        Ok(r) => println!("{r}"),
        Err(e) => fail(&format!("{path}: {e}")),
    }
}
