//! The union-bound error model against ns-3 3.37's two OFDM error-rate
//! models: for each mode, the SNR at which the data field of a 1500-octet
//! PSDU succeeds with probability 0.5 and 0.9 (table written by
//! `bench/ns3/error-thresholds.cc`). Ours is a hard-decision union bound
//! with the subcarrier power factor (module docs of `error_model::ofdm`);
//! YANS (Lacage & Henderson 2006) is a looser-coefficient bound and NIST
//! (Pei & Henderson 2010) was fitted to measurements. The test holds ours
//! between the two: at or above YANS, and at most 2 dB below NIST.
use wifitcp_wifi::channel::error_model::{chunk_success, ht, ErrorModel, Mode, UnionBoundModel};
use wifitcp_wifi::phy::ht::{HtMcs, HtWidth};

const BITS: u64 = 8 * 1500 + 22;

fn bisect(f: impl Fn(f64) -> f64, p: f64) -> f64 {
    let (mut lo, mut hi) = (-10.0, 60.0);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if f(mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

fn ours(mode: &str, p: f64) -> f64 {
    if let Some(i) = mode.strip_prefix("ht") {
        let mcs = HtMcs::new(i.parse().unwrap()).unwrap();
        return bisect(|db| chunk_success(ht::ber(mcs, HtWidth::Mhz20, 10f64.powf(db / 10.0)), BITS), p);
    }
    let mbps: u32 = mode.trim_start_matches("OfdmRate").trim_end_matches("Mbps").parse().unwrap();
    let m = Mode::from_kbps(mbps * 1000).unwrap();
    let model = UnionBoundModel::default();
    bisect(|db| model.chunk_success_prob(db, m, BITS), p)
}

#[test]
fn union_bound_lies_between_ns3_yans_and_nist() {
    let table = include_str!("data/ns3_error_thresholds.txt");
    let mut rows = std::collections::BTreeMap::new();
    for line in table.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        rows.insert((f[1].to_string(), f[2].to_string(), f[0].to_string()), f[3].parse::<f64>().unwrap());
    }
    let mut n = 0;
    for ((mode, p, model), _) in rows.iter().filter(|(k, _)| k.2 == "nist") {
        let nist = rows[&(mode.clone(), p.clone(), model.clone())];
        let yans = rows[&(mode.clone(), p.clone(), "yans".to_string())];
        let us = ours(mode, p.parse().unwrap());
        eprintln!(
            "{mode:16} p={p}: yans {yans:6.2}  ours {us:6.2}  nist {nist:6.2}  (nist - ours {:.2} dB)",
            nist - us
        );
        assert!(us >= yans - 0.05, "{mode} p={p}: ours {us:.2} below YANS {yans:.2}");
        assert!(nist - us <= 2.0 && us <= nist + 0.05, "{mode} p={p}: ours {us:.2} vs NIST {nist:.2}");
        n += 1;
    }
    assert_eq!(n, 32);
}
