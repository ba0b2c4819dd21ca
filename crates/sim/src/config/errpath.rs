//! Where in the document a deserialisation error lies, when serde's own
//! path stops short of it.
//!
//! - An internally tagged table (`[channel]`, tagged by `model`; a queue
//!   discipline, tagged by `kind`) is read by serde through a buffer that
//!   forgets the keys inside it: an error there is reported at the table
//!   (`channel: unknown variant ...`). The table is read again as its
//!   variant's own struct, which names the key
//!   (`channel.sta_antenna: unknown variant ...`).
//! - A TCP section (`[tcp]`, `traffic[].tcp`, the proxies' `wired_tcp` and
//!   `wireless_tcp`) is read as one table split in its parts (its own keys
//!   and the controllers' tables): an error there is reported at the
//!   section and located by reading the parts again
//!   (`tcp.vegas.alpha: invalid type ...`).
//! - A fixed-length array given more numbers than it takes is reported by
//!   serde_json as "trailing characters": it is said in words, with the
//!   length the key takes.
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The node at a serde path (`a.b[2].c`, `a.b.2.c`) of `doc`.
fn node<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    let mut v = doc;
    for part in path.split('.') {
        let (name, idx) = match part.split_once('[') {
            Some((n, rest)) => (n, Some(rest)),
            None => (part, None),
        };
        if !name.is_empty() {
            v = match name.parse::<usize>() {
                Ok(i) if v.is_array() => v.get(i)?,
                _ => v.get(name)?,
            };
        }
        if let Some(rest) = idx {
            for i in rest.split('[') {
                v = v.get(i.trim_end_matches(']').parse::<usize>().ok()?)?;
            }
        }
    }
    Some(v)
}

/// The error of reading `body` as `T`: (path inside it, message).
fn inner<T: DeserializeOwned>(body: Value) -> Option<(String, String)> {
    serde_path_to_error::deserialize::<_, T>(body).err().map(|e| (e.path().to_string(), e.into_inner().to_string()))
}

use super::flat::Reread;

/// The variant struct's error for the tagged table `t` at `path`.
fn tagged(path: &str, t: &Value) -> Option<(String, String)> {
    use wifitcp_wifi::channel::config as c;
    let obj = t.as_object()?;
    let last = path.rsplit('.').next().unwrap_or(path);
    if path == "mac" {
        return super::mac::locate_error(t);
    }
    if path.starts_with("traffic[") && path.ends_with(']') && !path[8..].contains('.') {
        return crate::apps::config::locate_error(t);
    }
    if matches!(last, "tcp" | "wired_tcp" | "wireless_tcp") {
        return wifitcp_tcp::scenario::locate_error(t);
    }
    let (tag, body) = if path == "channel" {
        ("model", obj)
    } else if last == "qdisc" || last == "station_qdisc" || path == "ap.proxy" {
        ("kind", obj)
    } else {
        return None;
    };
    let variant = body.get(tag)?.as_str()?;
    let mut rest = body.clone();
    rest.remove(tag);
    let rest = Value::Object(rest);
    match (tag, variant) {
        ("model", "fixed") => inner::<c::FixedConfig>(rest),
        ("model", "snr") => inner::<c::SnrConfig>(rest),
        ("model", "threshold") => inner::<c::ThresholdConfig>(rest),
        ("kind", kind) if path == "ap.proxy" => wifitcp_pep::config::ProxyConfig::visit(kind, Reread(rest)).flatten(),
        ("kind", kind) => wifitcp_queue::QdiscConfig::visit(kind, Reread(rest)).flatten(),
        _ => None,
    }
}

/// The length and meaning of a fixed-length array, by the key holding
/// the arrays.
fn fixed_len(path: &str) -> Option<(usize, &'static str)> {
    let key = path.rsplit_once('[').map_or(path, |(k, _)| k);
    let last = key.rsplit('.').next().unwrap_or(key);
    match last {
        "positions" | "ap_positions" => Some((2, "[x, y] in metres")),
        "area_m" => Some((2, "[x, y] in metres")),
        "waypoints" => Some((3, "[t_s, x_m, y_m]")),
        _ => None,
    }
}

/// `(path, msg)` of a deserialisation error, made precise where serde's
/// is not (see the module docs).
pub fn refine(doc: &Value, path: String, msg: String) -> (String, String) {
    if let Some(t) = node(doc, &path) {
        if let Some((p, m)) = tagged(&path, t) {
            let m = m.find(" at line ").map_or(m.clone(), |i| m[..i].to_string());
            if p == "." || p.is_empty() {
                return (path, m);
            }
            // the key found may be a table read its own way (a TCP section
            // inside a proxy's): locate the error inside it too
            let full = if p.starts_with('[') { format!("{path}{p}") } else { format!("{path}.{p}") };
            return refine(doc, full, m);
        }
        if msg == "trailing characters" {
            if let Value::Array(a) = t {
                let m = match fixed_len(&path) {
                    Some((n, what)) => format!("expected {n} numbers ({what}), got {}", a.len()),
                    None => format!("{} entries: more than this array takes", a.len()),
                };
                return (path, m);
            }
        }
    }
    (path, msg)
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    fn err(extra: &str) -> String {
        let j = format!(
            r#"{{"scenario": {{"name": "x"}}, "phy": {{"standard": "802.11g", "data_rate_mbps": 24}},
                "wlan": {{"stations": 2}}{extra}}}"#
        );
        Scenario::from_json(&j).unwrap_err().to_string()
    }

    #[test]
    fn errors_inside_tagged_tables_name_the_key() {
        let snr = |kv: &str| err(&format!(r#", "channel": {{"model": "snr", {kv}}}"#));
        assert_eq!(
            snr(r#""power_control": "max""#),
            "channel.power_control: unknown variant `max`, expected `none` or `game`"
        );
        assert_eq!(
            snr(r#""sta_antenna": "dish""#),
            "channel.sta_antenna: unknown variant `dish`, expected one of `omni`, `toward_ap`, `beam`"
        );
        assert_eq!(
            snr(r#""sta_antenna_gain_dbi": "x""#),
            "channel.sta_antenna_gain_dbi: invalid type: string \"x\", expected f64"
        );
        let e = err(r#", "channel": {"model": "threshold", "propagation": {"model": 3}}"#);
        assert!(e.starts_with("channel.propagation"), "{e}");
        let e = err(r#", "ap": {"qdisc": {"kind": "codel", "target_ms": "x"}}"#);
        assert_eq!(e, "ap.qdisc.target_ms: invalid type: string \"x\", expected f64");
    }

    #[test]
    fn errors_inside_a_tcp_section_name_the_key() {
        let e = err(r#", "tcp": {"cc": "vegas", "vegas": {"alpha": "x"}}"#);
        assert_eq!(e, "tcp.vegas.alpha: invalid type: string \"x\", expected f64");
        let e = err(r#", "tcp": {"vegas": {"alpah": 1}}"#);
        assert!(e.starts_with("tcp.vegas: unknown field `alpah`, expected one of `alpha`"), "{e}");
        let e = err(r#", "tcp": {"mss": "x"}"#);
        assert_eq!(e, "tcp.mss: invalid type: string \"x\", expected u32");
        let e = err(r#", "tcp": {"hybla": {}}"#);
        assert!(e.starts_with("tcp: unknown field `hybla`, expected one of `recovery`, `cc`"), "{e}");
        let e = err(r#", "tcp": {"cc": "hybla"}"#);
        assert!(e.starts_with("tcp.cc: unknown variant `hybla`, expected one of `reno`"), "{e}");
        let e = err(r#", "tcp": {"bbr": {"high_gain": 0.5}}"#);
        assert!(e.starts_with("tcp.bbr.high_gain: "), "{e}");
    }

    #[test]
    fn a_fixed_length_array_too_long_says_so() {
        let j = r#"{"scenario": {"name": "x"}, "phy": {"standard": "802.11g", "data_rate_mbps": 24},
                     "wlan": {"stations": 2, "positions": [[1, 2], [1, 2, 3]]}}"#;
        assert_eq!(
            Scenario::from_json(j).unwrap_err().to_string(),
            "wlan.positions[1]: expected 2 numbers ([x, y] in metres), got 3"
        );
    }
}
