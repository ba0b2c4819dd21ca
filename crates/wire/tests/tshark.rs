//! Wireshark's view of a pcap written by `PcapTap`: a short synthetic TCP
//! exchange (handshake with MSS, SACK-permitted, timestamps and window
//! scale; five data segments with one lost; SACK-carrying duplicate ACKs; a
//! retransmission; 802.11 Acks) is written to a WLAN (radiotap) file and a
//! wired (Ethernet) file, and `tshark` (Debian package `tshark`) must read
//! both without one malformed packet or error-level expert message, with
//! IPv4/TCP checksums and the 802.11 FCS verified good, and report the
//! sequence numbers, SACK blocks and the one retransmission that were
//! written. The same capture written with headers only (`Snap::Headers`:
//! frames with payload cut after the TCP header, their original length
//! kept) must give the same TCP view, no malformed packet, and good IPv4
//! checksums (the TCP checksum and FCS of a cut frame cannot be verified).
//! Skipped, with the reason printed, when tshark is not installed.
use std::net::Ipv4Addr;
use std::path::Path;
use std::process::Command;
use wifitcp_core::{FlowId, PacketId, SimDur, SimTime};
use wifitcp_wire::ip::{Ipv4Header, PROTO_TCP};
use wifitcp_wire::pcap::PcapTap;
use wifitcp_wire::sim_bytes::{radiotap, Control, ControlFrame, DataKind, Snap, WlanHop};
use wifitcp_wire::{Packet, SackBlock, TcpFlags, TcpHeader, TcpOptions};

const AP: u32 = 0;
const STA: u32 = 1;
const SERVER: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const CLIENT: Ipv4Addr = Ipv4Addr::new(10, 0, 1, 2);
const ISS_S: u32 = 1_000_000;
const ISS_C: u32 = 3_000_000_000;
const MSS: u32 = 1000;

/// What was written, per TCP segment, in record order.
#[derive(Debug, Clone, PartialEq)]
struct Seg {
    seq: u32,
    ack: u32,
    len: u32,
    sack: Vec<SackBlock>,
    retransmission: bool,
}

fn seg(id: u64, from_server: bool, seq: u32, ack: u32, flags: u8, len: u32, options: TcpOptions) -> Packet {
    let (src, dst, sp, dp) = if from_server { (SERVER, CLIENT, 80, 40000) } else { (CLIENT, SERVER, 40000, 80) };
    let mut ip = Ipv4Header::new(src, dst, PROTO_TCP);
    ip.ident = id as u16;
    let t = TcpHeader { src_port: sp, dst_port: dp, seq, ack, flags: TcpFlags(flags), window: 2000, options };
    Packet::new_tcp(PacketId(id), FlowId(0), SimTime::ZERO, ip, t, len)
}

/// The exchange, as (packet, from server, is a retransmission).
fn exchange() -> Vec<(Packet, bool, bool)> {
    const A: u8 = TcpFlags::ACK;
    let ts = |v: u32, e: u32| TcpOptions { timestamps: Some((v, e)), ..Default::default() };
    let syn_opts = TcpOptions {
        mss: Some(MSS as u16),
        window_scale: Some(7),
        sack_permitted: true,
        timestamps: Some((100, 0)),
        sack: Default::default(),
    };
    let mut v = vec![
        (seg(1, false, ISS_C, 0, TcpFlags::SYN, 0, syn_opts.clone()), false, false),
        (
            seg(
                2,
                true,
                ISS_S,
                ISS_C + 1,
                TcpFlags::SYN | A,
                0,
                TcpOptions { timestamps: Some((500, 100)), ..syn_opts },
            ),
            true,
            false,
        ),
        (seg(3, false, ISS_C + 1, ISS_S + 1, A, 0, ts(101, 500)), false, false),
    ];
    let d = |i: u32| ISS_S + 1 + i * MSS;
    let c_ack = ISS_C + 1;
    for i in 0..5 {
        v.push((seg(10 + i as u64, true, d(i), c_ack, A | TcpFlags::PSH, MSS, ts(501 + i, 101)), true, false));
    }
    // Segment 2 (the third) is lost on the air; the client acknowledges 0-1,
    // then SACKs 3 and 3-4 with duplicate ACKs.
    v.push((seg(20, false, c_ack, d(1), A, 0, ts(102, 501)), false, false));
    v.push((seg(21, false, c_ack, d(2), A, 0, ts(103, 502)), false, false));
    let sack = |r: u32| TcpOptions {
        timestamps: Some((104, 504)),
        sack: vec![SackBlock { left: d(3), right: d(r) }].into(),
        ..Default::default()
    };
    v.push((seg(22, false, c_ack, d(2), A, 0, sack(4)), false, false));
    v.push((seg(23, false, c_ack, d(2), A, 0, sack(5)), false, false));
    // The retransmission of the lost segment (a new packet id, as in the
    // simulator), then the cumulative ACK.
    v.push((seg(30, true, d(2), c_ack, A | TcpFlags::PSH, MSS, ts(520, 104)), true, true));
    v.push((seg(31, false, c_ack, d(5), A, 0, ts(105, 520)), false, false));
    v
}

fn write_captures(dir: &Path, snap: Snap) -> Vec<Seg> {
    let mut tap = PcapTap::create_with(dir, snap).unwrap();
    let radio = radiotap(54_000, 2437, Some(-48));
    let mut t = SimTime::ZERO;
    let mut written = Vec::new();
    let mut seqno = [0u16; 2];
    for (p, from_server, retx) in exchange() {
        t += SimDur::from_micros(300);
        let (ta, ra) = if from_server { (AP, STA) } else { (STA, AP) };
        let sn = &mut seqno[ta as usize];
        let hop = WlanHop {
            ta,
            ra,
            ap: Some(AP),
            seq: *sn,
            retry: false,
            duration: SimDur::from_micros(44),
            kind: DataKind::Data,
        };
        *sn = sn.wrapping_add(1);
        tap.wlan_data(t, "wlan0", &radio, &hop, &p).unwrap();
        let ack = ControlFrame { kind: Control::Ack, ta: ra, ra: ta, duration: SimDur::ZERO };
        tap.wlan_control(t + SimDur::from_micros(150), "wlan0", &radio, &ack).unwrap();
        // The wired link between the server (node 10) and the AP (node 0).
        let (src, dst) = if from_server { (10, AP) } else { (AP, 10) };
        tap.wired(t, "eth0", src, dst, &p).unwrap();
        let h = p.tcp().unwrap();
        written.push(Seg {
            seq: h.seq,
            ack: h.ack,
            len: p.payload_len,
            sack: h.options.sack.to_vec(),
            retransmission: retx,
        });
    }
    let files = tap.finish().unwrap();
    assert_eq!(files.len(), 2);
    written
}

fn tshark(args: &[&str]) -> String {
    let out = Command::new("tshark").args(args).output().expect("run tshark");
    assert!(out.status.success(), "tshark {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Wireshark preferences: verify every checksum (all off by default) and
/// show absolute sequence numbers (so SACK edges are the raw values).
const PREFS: [&str; 12] = [
    "-o",
    "tcp.check_checksum:TRUE",
    "-o",
    "ip.check_checksum:TRUE",
    "-o",
    "wlan.check_fcs:TRUE",
    "-o",
    "wlan.check_checksum:TRUE",
    "-o",
    "tcp.relative_sequence_numbers:FALSE",
    "-o",
    "tcp.analyze_sequence_numbers:TRUE",
];

fn check_file(path: &Path, written: &[Seg], wlan: bool, snap: Snap) {
    let f = path.to_str().unwrap();
    let mut a = vec!["-r", f];
    a.extend(PREFS);
    // No malformed packet, no expert message of severity error or warning
    // other than the ones TCP analysis must raise for the lost segment.
    let bad = tshark(&[&a[..], &["-Y", "_ws.malformed || _ws.expert.severity == error"]].concat());
    assert!(bad.trim().is_empty(), "{f}: malformed or error-level packets:\n{bad}");
    // Checksums that Wireshark checked: every one good (status 1).
    let cs = tshark(
        &[
            &a[..],
            &[
                "-T",
                "fields",
                "-E",
                "separator=;",
                "-e",
                "ip.checksum.status",
                "-e",
                "tcp.checksum.status",
                "-e",
                "wlan.fcs.status",
            ],
        ]
        .concat(),
    );
    let mut checked = 0;
    let lines: Vec<&str> = cs.lines().collect();
    for line in &lines {
        for (k, v) in line.split(';').enumerate().filter(|(_, v)| !v.is_empty()) {
            // Headers only: a cut frame's TCP checksum and FCS are
            // "unverified" (2), never bad (0); IPv4 headers are whole.
            let unverified_ok = snap == Snap::Headers && k > 0 && v == "2";
            assert!(v == "1" || unverified_ok, "{f}: a checksum Wireshark finds bad: {line}");
            checked += (v == "1") as usize;
        }
    }
    let expected_checks = written.len() * if wlan { 3 } else { 2 } + if wlan { written.len() } else { 0 };
    if snap == Snap::Full {
        assert_eq!(checked, expected_checks, "{f}: checksum statuses seen");
    } else {
        // every IPv4 header, and the whole frames' TCP checksums (and FCS)
        let whole = written.iter().filter(|s| s.len == 0).count();
        let want = written.len() + whole * if wlan { 2 } else { 1 } + if wlan { written.len() } else { 0 };
        assert_eq!(checked, want, "{f}: good checksums seen with headers only");
    }
    // The TCP view.
    let fields = tshark(
        &[
            &a[..],
            &[
                "-Y",
                "tcp",
                "-T",
                "fields",
                "-E",
                "separator=;",
                "-e",
                "tcp.seq_raw",
                "-e",
                "tcp.ack_raw",
                "-e",
                "tcp.len",
                "-e",
                "tcp.options.sack_le",
                "-e",
                "tcp.options.sack_re",
                "-e",
                "tcp.analysis.retransmission",
                "-e",
                "tcp.analysis.fast_retransmission",
            ],
        ]
        .concat(),
    );
    let seen: Vec<Seg> = fields
        .lines()
        .map(|l| {
            let c: Vec<&str> = l.split(';').collect();
            assert_eq!(c.len(), 7, "{l}");
            let nums =
                |s: &str| s.split(',').filter(|x| !x.is_empty()).map(|x| x.parse::<u32>().unwrap()).collect::<Vec<_>>();
            let sack = nums(c[3]).into_iter().zip(nums(c[4])).map(|(left, right)| SackBlock { left, right }).collect();
            Seg {
                seq: c[0].parse().unwrap(),
                ack: c[1].parse().unwrap(),
                len: c[2].parse().unwrap(),
                sack,
                retransmission: !c[5].is_empty() || !c[6].is_empty(),
            }
        })
        .collect();
    assert_eq!(seen, written, "{f}: tshark's TCP view differs from what was written");
}

#[test]
fn tshark_reads_the_tap_without_malformed_packets() {
    if Command::new("tshark").arg("--version").output().map(|o| !o.status.success()).unwrap_or(true) {
        eprintln!(
            "SKIPPED tshark_reads_the_tap_without_malformed_packets: tshark is not installed (Debian package `tshark`)"
        );
        return;
    }
    let cut = std::env::temp_dir().join(format!("wifitcp-tshark-cut-{}", std::process::id()));
    let w = write_captures(&cut, Snap::Headers);
    check_file(&cut.join("wlan0.pcap"), &w, true, Snap::Headers);
    check_file(&cut.join("eth0.pcap"), &w, false, Snap::Headers);
    let _ = std::fs::remove_dir_all(&cut);
    let dir = std::env::temp_dir().join(format!("wifitcp-tshark-{}", std::process::id()));
    let written = write_captures(&dir, Snap::Full);
    assert_eq!(written, w);
    assert_eq!(written.iter().filter(|s| s.retransmission).count(), 1);
    check_file(&dir.join("wlan0.pcap"), &written, true, Snap::Full);
    check_file(&dir.join("eth0.pcap"), &written, false, Snap::Full);
    // 802.11 view: every data frame and every Ack, addressed as written.
    let f = dir.join("wlan0.pcap");
    let wl = tshark(&[
        "-r",
        f.to_str().unwrap(),
        "-T",
        "fields",
        "-E",
        "separator=;",
        "-e",
        "wlan.fc.type_subtype",
        "-e",
        "wlan.ra",
        "-e",
        "wlan.ta",
        "-e",
        "wlan.fc.ds",
    ]);
    let rows: Vec<&str> = wl.lines().collect();
    assert_eq!(rows.len(), 2 * written.len());
    assert_eq!(rows[0], "0x0020;02:00:00:00:00:00;02:00:00:00:00:01;0x01"); // SYN from the station: To DS
    assert_eq!(rows[1], "0x001d;02:00:00:00:00:01;;0x00"); // its Ack, to the station
    if std::env::var_os("WIFITCP_KEEP_PCAP").is_none() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
