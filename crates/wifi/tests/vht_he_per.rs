//! The VHT/HE union-bound error model (`error_model::mcs`) against ns-3
//! 3.37's `TableBasedErrorRateModel`: for VHT MCS 0, 4, 7, 9 and HE MCS 0,
//! 4, 7, 9, 11 at 80 MHz, one stream, the SNR (over the channel width) at
//! which the data field of a 1500-octet PSDU succeeds with probability 0.5
//! and 0.9 (table written by `bench/ns3/vht-he-per.cc`).
//!
//! ns-3's tables come from link-level simulation of a soft-decision
//! receiver; ours is the hard-decision union bound of `error_model::ofdm`
//! (as for HT, docs/validation.md section 13, where it needs 2.1-3.3 dB more
//! SNR than ns-3's tables). The test holds the shift between 1 and 4.5 dB
//! for MCS 0-9, and the fall from 50 % to 90 % success within 0.5 dB of
//! ns-3's: the same curves, shifted by the receiver the model assumes.
//! ns-3's BCC tables stop at MCS 9 (1024-QAM is LDPC-only in 802.11ax);
//! for HE MCS 11 with BCC its table model uses its fallback error-rate
//! model, a closed form like ours: there the shift is held to 0-2 dB.
use wifitcp_wifi::channel::error_model::{chunk_success, mcs};
use wifitcp_wifi::phy::he::{HeBand, HeFormat, HeGi, HeTxVector};
use wifitcp_wifi::phy::ht::GuardInterval;
use wifitcp_wifi::phy::vht::VhtTxVector;
use wifitcp_wifi::phy::{ChannelWidth, TxVector};

const BITS: u64 = 8 * 1500 + 22;

fn ours(fmt: &str, m: u8, p: f64) -> f64 {
    let v = if fmt == "vht" {
        TxVector::Vht(VhtTxVector::new(m, 1, ChannelWidth::Mhz80, GuardInterval::Long).unwrap())
    } else {
        TxVector::He(HeTxVector::new(HeFormat::Su, m, 1, ChannelWidth::Mhz80, HeGi::Ns800, HeBand::Ghz5, 0).unwrap())
    };
    let e = v.error_params();
    let (mut lo, mut hi) = (-10.0, 60.0);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if chunk_success(mcs::ber(&e, 10f64.powf(mid / 10.0)), BITS) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

#[test]
fn vht_he_thresholds_are_ns3_tables_shifted_by_the_hard_decision_bound() {
    let table = include_str!("data/ns3_vht_he_per.txt");
    let mut at = std::collections::BTreeMap::new();
    for line in table.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let m: u8 = f[1].parse().unwrap();
        at.insert((f[0].to_string(), m, f[3].to_string()), f[4].parse::<f64>().unwrap());
    }
    let mut n = 0;
    for ((fmt, m, p), ns3) in &at {
        if p != "0.5" {
            continue;
        }
        let ns3_90 = at[&(fmt.clone(), *m, "0.9".to_string())];
        let (us, us_90) = (ours(fmt, *m, 0.5), ours(fmt, *m, 0.9));
        eprintln!(
            "{fmt} MCS {m:2}: 50 % ours {us:6.2} ns-3 {ns3:6.2} (+{:.2} dB); 90 % ours {us_90:6.2} ns-3 {ns3_90:6.2}",
            us - ns3
        );
        let band = if *m <= 9 { 1.0..=4.5 } else { 0.0..=2.0 };
        assert!(band.contains(&(us - ns3)), "{fmt} MCS {m}: ours {us:.2} dB, ns-3 {ns3:.2} dB");
        assert!(
            ((us_90 - us) - (ns3_90 - ns3)).abs() < 0.5,
            "{fmt} MCS {m}: fall {:.2} vs {:.2}",
            us_90 - us,
            ns3_90 - ns3
        );
        n += 1;
    }
    assert_eq!(n, 9);
}
