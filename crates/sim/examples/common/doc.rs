//! What the engine-only examples share: a scenario file read as the
//! engine's JSON document, with overrides.
use serde_json::Value;

/// The scenario at `path` (TOML or JSON) as the engine's document:
/// Python-only tables (`[sweep]`, `[report]`, `[campaign]`,
/// `scenario.seeds`) dropped, then each `dotted.key=JSON` of `overrides`
/// set (a value that is not JSON is taken as a string).
pub fn load(path: &str, overrides: &[String]) -> Value {
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
    for kv in overrides {
        let (k, v) = kv.split_once('=').unwrap_or_else(|| fail(&format!("{kv}: expected dotted.key=JSON")));
        let v: Value = serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_string()));
        let mut cur = &mut doc;
        for part in k.split('.') {
            cur = &mut cur[part];
        }
        *cur = v;
    }
    doc
}

/// One line on stderr, exit status 2.
pub fn fail(m: &str) -> ! {
    eprintln!("error: {m}");
    std::process::exit(2);
}
