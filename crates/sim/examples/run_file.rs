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
    let text = doc::load(path, &args[2..]).to_string();
    // The result goes to stdout as it is rendered (`api::run_json_to`).
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let result = match trace {
        None => wifitcp_sim::api::run_json_to(&text, seed, &mut out),
        Some(dir) => {
            let opts = wifitcp_sim::api::RunOptions { trace_dir: Some(dir), ..Default::default() };
            wifitcp_sim::api::run_json_with_to(
                &text,
                seed,
                &opts,
                wifitcp_sim::api::CHUNK_WALL,
                |_| wifitcp_sim::api::Control::Continue,
                &mut out,
            )
            .map(|done| assert!(done, "not stopped"))
        }
    };
    use std::io::Write;
    match result.and_then(|()| {
        writeln!(out).and_then(|()| out.flush()).map_err(|e| wifitcp_sim::api::ApiError::Run(e.to_string()))
    }) {
        Ok(()) => {}
        Err(e) => fail(&format!("{path}: {e}")),
    }
}
