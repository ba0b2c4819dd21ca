//! Replays the fuzz corpus kept in the repository (fuzz/corpus/<target>/)
//! through the same checks the fuzz targets run (`codec::selfcheck`), so
//! `cargo test` (and `make test`) exercise every input the coverage-guided
//! fuzzer found interesting without the nightly toolchain.
//!
//! `cargo test -p wifitcp-wire --test corpus -- --ignored write_seeds`
//! (re)writes the seed inputs the fuzzing started from (fuzz/corpus/*/seed-*).
use std::path::{Path, PathBuf};
use wifitcp_wire::codec::selfcheck;

type Check = fn(&[u8]);

const TARGETS: [(&str, Check); 8] = [
    ("ieee80211", selfcheck::ieee80211),
    ("radiotap", selfcheck::radiotap),
    ("llc", selfcheck::llc),
    ("ethernet", selfcheck::ethernet),
    ("ipv4", selfcheck::ipv4),
    ("tcp", selfcheck::tcp),
    ("udp", selfcheck::udp),
    ("wlan_stack", selfcheck::wlan_stack),
];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus")
}

#[test]
fn replay_fuzz_corpus() {
    let mut total = 0;
    for (name, check) in TARGETS {
        let dir = corpus_dir().join(name);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        assert!(files.len() >= 3, "{}: only {} corpus files", dir.display(), files.len());
        for f in &files {
            let data = std::fs::read(f).unwrap();
            let r = std::panic::catch_unwind(|| check(&data));
            assert!(r.is_ok(), "{name}: {} makes the parser panic", f.display());
        }
        total += files.len();
    }
    eprintln!("replayed {total} corpus inputs");
}

/// Valid frames of every kind the codec models, as seeds for the fuzzer.
#[test]
#[ignore]
fn write_seeds() {
    use std::net::Ipv4Addr;
    use wifitcp_core::{FlowId, PacketId, SimDur, SimTime};
    use wifitcp_wire::codec::ieee80211::*;
    use wifitcp_wire::codec::MacAddress;
    use wifitcp_wire::ip::{Ipv4Header, PROTO_TCP, PROTO_UDP};
    use wifitcp_wire::sim_bytes::{self, Control, ControlFrame, DataKind, QosAck, WlanHop};
    use wifitcp_wire::{Packet, SackBlock, TcpFlags, TcpHeader, TcpOptions, UdpHeader};

    let ip = |p| Ipv4Header::new(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 1, 2), p);
    let tcp = |o: TcpOptions, n| {
        let t =
            TcpHeader { src_port: 80, dst_port: 4000, seq: 7, ack: 9, flags: TcpFlags(0x12), window: 100, options: o };
        Packet::new_tcp(PacketId(0), FlowId(0), SimTime::ZERO, ip(PROTO_TCP), t, n)
    };
    let pkts = [
        tcp(TcpOptions::default(), 0),
        tcp(
            TcpOptions {
                mss: Some(1460),
                window_scale: Some(7),
                sack_permitted: true,
                timestamps: Some((1, 2)),
                sack: Default::default(),
            },
            0,
        ),
        tcp(
            TcpOptions {
                timestamps: Some((3, 4)),
                sack: vec![SackBlock { left: 1, right: 2 }, SackBlock { left: 5, right: 9 }].into(),
                ..Default::default()
            },
            16,
        ),
        Packet::new_udp(
            PacketId(1),
            FlowId(1),
            SimTime::ZERO,
            ip(PROTO_UDP),
            UdpHeader { src_port: 5, dst_port: 6 },
            12,
        ),
    ];
    let m = MacAddress::from_index;
    let f0 = FcFlags(0);
    let mut frames: Vec<Vec<u8>> = Vec::new();
    for r in [
        MacFrameRepr::Rts { flags: f0, duration: 100, ra: m(1), ta: m(2) },
        MacFrameRepr::Cts { flags: f0, duration: 50, ra: m(2) },
        MacFrameRepr::Ack { flags: f0, duration: 0, ra: m(2) },
        MacFrameRepr::CfEnd { flags: f0, duration: 0, ra: MacAddress::BROADCAST, bssid: m(0) },
        MacFrameRepr::BlockAckReq(BlockAckReqRepr {
            flags: f0,
            duration: 0,
            ra: m(1),
            ta: m(0),
            control: ba_control::COMPRESSED_BITMAP | 0x5000,
            start: SeqCtrl { frag: 0, seq: 10 },
        }),
        MacFrameRepr::BlockAck(BlockAckRepr {
            flags: f0,
            duration: 0,
            ra: m(0),
            ta: m(1),
            control: ba_control::COMPRESSED_BITMAP,
            start: SeqCtrl { frag: 0, seq: 10 },
            bitmap: 0xf0f0,
        }),
        MacFrameRepr::Beacon(BeaconRepr {
            flags: f0,
            duration: 0,
            da: MacAddress::BROADCAST,
            sa: m(0),
            bssid: m(0),
            seq_ctrl: SeqCtrl { frag: 0, seq: 1 },
            timestamp: 123456,
            beacon_interval: 100,
            capability: 0x0005,
            elements: vec![
                Element::Ssid(b"wifitcp".to_vec()),
                Element::SupportedRates(vec![0x8c, 0x12, 0x98, 0x24, 0xb0, 0x48, 0x60, 0x6c]),
                Element::DsssParameterSet(6),
                Element::CfParameterSet { count: 0, period: 1, max_duration: 100, dur_remaining: 50 },
                Element::Tim { dtim_count: 0, dtim_period: 1, bitmap_control: 0, bitmap: vec![0] },
                Element::Unknown { id: 42, data: vec![0] },
            ],
        }),
    ] {
        frames.push(r.to_bytes(None, false).unwrap());
    }
    let mut datagrams = Vec::new();
    for (i, p) in pkts.iter().enumerate() {
        datagrams.push(sim_bytes::datagram(p));
        let qos = DataKind::Qos { tid: 3, ack: QosAck::Normal };
        for (kind, ap) in [(DataKind::Data, Some(0)), (qos, Some(1)), (DataKind::Data, None)] {
            let hop =
                WlanHop { ta: 0, ra: 1, ap, seq: i as u16, retry: i % 2 == 1, duration: SimDur::from_micros(44), kind };
            let f = sim_bytes::wlan_data_frame(p, &hop);
            frames.push(f[..f.len() - 4].to_vec());
        }
    }
    let radio = sim_bytes::radiotap(54_000, 2437, Some(-40));
    let stack: Vec<Vec<u8>> = frames
        .iter()
        .map(|f| {
            let mut g = f.clone();
            append_fcs(&mut g);
            radio.to_bytes(&g).unwrap()
        })
        .chain([sim_bytes::radiotap(11_000, 2412, None)
            .to_bytes(&sim_bytes::wlan_control_frame(&ControlFrame {
                kind: Control::Ack,
                ta: 0,
                ra: 1,
                duration: SimDur::ZERO,
            }))
            .unwrap()])
        .collect();
    let eth: Vec<Vec<u8>> = pkts.iter().map(|p| sim_bytes::ethernet_frame(p, 1, 2)).collect();
    let l4 = |d: &Vec<u8>| d[20..].to_vec();
    let seeds: [(&str, Vec<Vec<u8>>); 8] = [
        ("ieee80211", frames.clone()),
        ("radiotap", stack.clone()),
        (
            "llc",
            frames
                .iter()
                .filter(|f| f[0] & 0x0c == 0x08 && f.len() > 30)
                .map(|f| f[f.len() - 8 - 40..].to_vec())
                .collect(),
        ),
        ("ethernet", eth),
        ("ipv4", datagrams.clone()),
        ("tcp", datagrams[..3].iter().map(l4).collect()),
        ("udp", datagrams[3..].iter().map(l4).collect()),
        ("wlan_stack", stack),
    ];
    for (name, list) in seeds {
        let dir = corpus_dir().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        for (i, s) in list.iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{i:02}")), s).unwrap();
        }
    }
}
