//! Golden result digests: every case of `tests/golden/cases.toml` runs and
//! the sha256 of its result JSON (without the wall time and the version)
//! must equal the line of `tests/golden/digests.txt` with its name. A
//! refactor that is meant to keep results keeps every digest; a change that
//! alters results rewrites the file (`WIFITCP_GOLDEN_UPDATE=1`) in the same
//! commit and says why. Each line also carries a few headline numbers, so
//! that the diff of an update shows what moved.
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use wifitcp_sim::api::run_json;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One path segment: a table key or an array index (`a.b[2].c`, `a.b.2.c`).
enum Seg {
    Key(String),
    Idx(usize),
}

fn split(path: &str) -> Vec<Seg> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (name, rest) = part.split_once('[').map_or((part, ""), |(a, b)| (a, b));
        if let Ok(i) = name.parse::<usize>() {
            out.push(Seg::Idx(i));
        } else if !name.is_empty() {
            out.push(Seg::Key(name.to_string()));
        }
        for ix in rest.split('[') {
            let ix = ix.trim_end_matches(']');
            if !ix.is_empty() {
                out.push(Seg::Idx(ix.parse().unwrap_or_else(|_| panic!("bad index in {path}"))));
            }
        }
    }
    out
}

fn set(doc: &mut Value, path: &str, v: Value) {
    let segs = split(path);
    let mut cur = doc;
    for (k, s) in segs.iter().enumerate() {
        let last = k + 1 == segs.len();
        cur = match s {
            Seg::Key(key) => {
                let obj = cur.as_object_mut().unwrap_or_else(|| panic!("{path}: not a table"));
                if last {
                    obj.insert(key.clone(), v);
                    return;
                }
                obj.entry(key.clone()).or_insert_with(|| Value::Object(Default::default()))
            }
            Seg::Idx(i) => {
                let arr = cur.as_array_mut().unwrap_or_else(|| panic!("{path}: not an array"));
                if last {
                    arr[*i] = v;
                    return;
                }
                &mut arr[*i]
            }
        };
    }
}

fn toml_to_json(t: toml::Value) -> Value {
    serde_json::to_value(t).expect("TOML is JSON-representable")
}

/// The result JSON of one case, and its headline numbers.
fn run_case(case: &toml::Value) -> (String, String, String) {
    let name = case["name"].as_str().expect("name").to_string();
    let file = root().join(case["scenario"].as_str().expect("scenario"));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut doc = toml_to_json(text.parse::<toml::Value>().expect("valid TOML"));
    let obj = doc.as_object_mut().expect("a table");
    for k in ["sweep", "campaign", "report"] {
        obj.remove(k);
    }
    if let Some(s) = obj.get_mut("scenario").and_then(|s| s.as_object_mut()) {
        s.remove("seeds");
    }
    if let Some(sets) = case.get("set").and_then(|s| s.as_table()) {
        for (k, v) in sets {
            set(&mut doc, k, toml_to_json(v.clone()));
        }
    }
    // A relative trace file is relative to the scenario's folder, as the
    // Python loader resolves it (python/wifitcp/scenario.py, resolve_files).
    for tr in doc.get_mut("traffic").and_then(|t| t.as_array_mut()).into_iter().flatten() {
        if let Some(Value::String(f)) = tr.get_mut("trace_file") {
            if Path::new(f.as_str()).is_relative() {
                *f = file.parent().expect("a folder").join(&*f).to_string_lossy().into_owned();
            }
        }
    }
    let seed = case.get("seed").and_then(|s| s.as_integer()).unwrap_or(1) as u64;
    let out = run_json(&doc.to_string(), seed).unwrap_or_else(|e| panic!("case {name}: {e:?}"));
    let mut r: Value = serde_json::from_str(&out).expect("result JSON");
    let o = r.as_object_mut().expect("result object");
    o.remove("wall_time_s");
    o.remove("version");
    let json = r.to_string();
    let digest: String = Sha256::digest(json.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    let num = |k: &str| r.get(k).and_then(|v| v.as_f64()).map_or("-".into(), |x| format!("{x:.4}"));
    let summary = format!("aggregate_mbps={} events={}", num("aggregate_mbps"), num("events"));
    (name, digest, summary)
}

#[test]
fn golden_digests() {
    let cases_file = root().join("tests/golden/cases.toml");
    let digests_file = root().join("tests/golden/digests.txt");
    let cases: toml::Value = std::fs::read_to_string(&cases_file).unwrap().parse().unwrap();
    let cases = cases["case"].as_array().expect("[[case]] tables");
    // Two threads: the cases are independent and CI has two cores.
    let (a, b) = cases.split_at(cases.len() / 2);
    let (ra, rb) = std::thread::scope(|s| {
        let ha = s.spawn(|| a.iter().map(run_case).collect::<Vec<_>>());
        let hb = s.spawn(|| b.iter().map(run_case).collect::<Vec<_>>());
        (ha.join().unwrap(), hb.join().unwrap())
    });
    let got: Vec<_> = ra.into_iter().chain(rb).collect();
    let text: String = got.iter().map(|(n, d, s)| format!("{n} {d} {s}\n")).collect();
    if std::env::var_os("WIFITCP_GOLDEN_UPDATE").is_some() {
        std::fs::write(&digests_file, format!("# name sha256 headline (see crates/sim/tests/golden.rs)\n{text}"))
            .unwrap();
        return;
    }
    let want: BTreeMap<String, (String, String)> = std::fs::read_to_string(&digests_file)
        .expect("tests/golden/digests.txt (WIFITCP_GOLDEN_UPDATE=1 writes it)")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut it = l.splitn(3, ' ');
            let n = it.next().unwrap().to_string();
            (n, (it.next().unwrap_or("").to_string(), it.next().unwrap_or("").to_string()))
        })
        .collect();
    let mut bad = Vec::new();
    for (n, d, s) in &got {
        match want.get(n) {
            Some((wd, _)) if wd == d => {}
            Some((_, ws)) => bad.push(format!("{n}: digest changed ({ws} -> {s})")),
            None => bad.push(format!("{n}: no digest recorded")),
        }
    }
    for n in want.keys() {
        if !got.iter().any(|(g, _, _)| g == n) {
            bad.push(format!("{n}: recorded but no longer a case"));
        }
    }
    assert!(
        bad.is_empty(),
        "golden digests differ (a change that alters results updates tests/golden/digests.txt with \
         WIFITCP_GOLDEN_UPDATE=1 and says why):\n{}",
        bad.join("\n")
    );
}
