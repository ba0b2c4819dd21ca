//! HE MU and HE TB PPDU airtime against ns-3 3.37 (table written by
//! `bench/ns3/he-mu-txtime.cc`): the equal-sized RUs its round-robin
//! scheduler gives 1 to 36 stations on 20, 40, 80 and 160 MHz, MCS 0-11,
//! one and two streams, the three guard intervals, PSDUs of 14 to 65,535
//! octets (HE TB PPDUs up to aPPDUMaxTime, 5.484 ms); every user alike ("mu", "tb") or user i at MCS (m + 5 i) mod 12
//! with (i + 1) times the PSDU ("mix").
//!
//! ns-3 differs from `phy::he_mu` exactly as it does for HE SU
//! (`tests/vht_he_txtime.rs`), and the test checks each line differs by
//! those and nothing else: every HE-LTF 8 us, and the fractional N_DBPS =
//! N_CBPS x R of the 996- and 2x996-tone RUs at MCS 9 and 11 (one symbol
//! fewer for some PSDUs); and it lists the user of a 2x996-tone RU twice in
//! each HE-SIG-B content channel (one HE-SIG-B symbol more at some MCSs).
//! HE-SIG-B durations agree otherwise, and so does the
//! Trigger's UL Length for ns-3's own TB PPDU duration.
use wifitcp_core::SimDur;
use wifitcp_wifi::phy::he::HeGi;
use wifitcp_wifi::phy::he_mu::{self, equal_rus, MuUser, Ru, RuSize};
use wifitcp_wifi::phy::ppdu::PPDU_MAX_TIME;
use wifitcp_wifi::phy::ChannelWidth;

#[test]
fn he_mu_and_tb_txtime_match_ns3() {
    let table = include_str!("data/ns3_he_mu_txtime.txt");
    let mut counts = [0usize; 3];
    let mut tb = 0;
    let mut bad = Vec::new();
    for line in table.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| f[i].parse::<u64>().unwrap();
        let width = ChannelWidth::from_mhz(num(1) as u32).unwrap();
        let n = num(2) as u32;
        let size = RuSize::from_tones(num(3) as u32).unwrap();
        assert_eq!(equal_rus(width, n), (size, n), "{line}");
        let (mcs, nss, bytes) = (num(4) as u8, num(5) as u8, num(7) as u32);
        let gi = match num(6) {
            800 => HeGi::Ns800,
            1600 => HeGi::Ns1600,
            _ => HeGi::Ns3200,
        };
        let mix = f[0] == "mix";
        let users: Vec<MuUser> = (0..n)
            .map(|i| {
                let m = if mix { (mcs as u32 + 5 * i) % 12 } else { mcs as u32 };
                MuUser::new(Ru::new(size, i, width).unwrap(), m as u8, nss).unwrap()
            })
            .collect();
        let sizes: Vec<u32> = (0..n).map(|i| if mix { bytes * (i + 1) } else { bytes }).collect();
        // ns-3's N_SYM: the fractional N_DBPS.
        let nsym_ns3 = users
            .iter()
            .zip(&sizes)
            .map(|(u, &b)| {
                let (num, den) = u.mcs.code_rate();
                let ncbps = u64::from(u.ru.size.data_subcarriers() * u.mcs.constellation().bits() * u32::from(u.nss));
                ((8 * u64::from(b) + 22) * u64::from(den)).div_ceil(ncbps * u64::from(num))
            })
            .max()
            .unwrap();
        let nsym = users.iter().zip(&sizes).map(|(u, &b)| u.symbols(b)).max().unwrap();
        let ltf = u64::from(he_mu::ltfs(nss));
        let adjust = |ours: SimDur| {
            SimDur::from_nanos(
                ours.as_nanos() + 8000 * ltf - gi.ltf_nanos() * ltf - (nsym - nsym_ns3) * (12_800 + gi.nanos()),
            )
        };
        let ns3 = SimDur::from_nanos(num(9));
        match f[0] {
            "mu" | "mix" => {
                counts[usize::from(mix)] += 1;
                let sigb = 4000 * u64::from(he_mu::sigb_symbols(width, &users));
                let ours = he_mu::mu_txtime(width, gi, 0, &users, &sizes);
                // ns-3 lists the user of a 2x996-tone RU twice in each
                // content channel (once per 80 MHz segment).
                let sigb_ns3 = if size == RuSize::Tones2x996 {
                    4000 * u64::from(he_mu::sigb_symbols(width, &[users[0], users[0]]))
                } else {
                    sigb
                };
                let ours_ns3 = ours + SimDur::from_nanos(sigb_ns3) - SimDur::from_nanos(sigb);
                if sigb_ns3 != num(8) || adjust(ours_ns3) != ns3 {
                    bad.push(format!("{line}: ours SIG-B {sigb} ns, TXTIME {ours:?}"));
                }
            }
            _ if ns3 > PPDU_MAX_TIME => {
                // Longer than aPPDUMaxTime, beyond L-SIG's 12-bit LENGTH
                // (ns-3 wraps it); no Trigger solicits such a PPDU.
                counts[2] += 1;
            }
            _ => {
                counts[2] += 1;
                tb += 1;
                let (len, ours) = he_mu::tb_ppdu(gi, 0, &users, &sizes);
                if adjust(ours) != ns3 || u64::from(he_mu::l_sig_length(ns3)) != num(8) {
                    bad.push(format!("{line}: ours LENGTH {len}, duration {ours:?}"));
                }
            }
        }
    }
    assert_eq!(counts, [5472, 5472, 5472]);
    assert_eq!(tb, 4364);
    assert!(bad.is_empty(), "{} lines differ, e.g. {:#?}", bad.len(), &bad[..bad.len().min(20)]);
}
