//! Run a scenario file with the engine alone (no Python): for benchmarks.
//!
//! `run_file SCENARIO.toml|SCENARIO.json SEED [dotted.key=JSON ...]`
//! prints the result JSON. Python-only tables (`[sweep]`, `[report]`,
//! `[campaign]`, `scenario.seeds`) are dropped; overrides take JSON values
//! (`wlan.stations=50`, `phy.standard="802.11g"`).
use serde_json::Value;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(path), Some(seed)) = (args.first(), args.get(1).and_then(|s| s.parse::<u64>().ok())) else {
        eprintln!("usage: run_file SCENARIO.toml SEED [dotted.key=JSON ...]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let mut doc: Value = if path.ends_with(".toml") {
        let t: toml::Value = toml::from_str(&text).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
        serde_json::to_value(t).expect("TOML is JSON-representable")
    } else {
        serde_json::from_str(&text).unwrap_or_else(|e| fail(&format!("{path}: {e}")))
    };
    for k in ["sweep", "report", "campaign"] {
        doc.as_object_mut().map(|o| o.remove(k));
    }
    doc["scenario"].as_object_mut().map(|o| o.remove("seeds"));
    for kv in &args[2..] {
        let (k, v) = kv.split_once('=').unwrap_or_else(|| fail(&format!("{kv}: expected dotted.key=JSON")));
        let v: Value = serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_string()));
        let mut cur = &mut doc;
        for part in k.split('.') {
            cur = &mut cur[part];
        }
        *cur = v;
    }
    match wifitcp_sim::api::run_json(&doc.to_string(), seed) {
        Ok(r) => println!("{r}"),
        Err(e) => fail(&format!("{path}: {e}")),
    }
}

fn fail(m: &str) -> ! {
    eprintln!("error: {m}");
    std::process::exit(2);
}
