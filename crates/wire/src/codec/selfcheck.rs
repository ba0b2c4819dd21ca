//! Property checks over arbitrary bytes, shared by the fuzz targets (fuzz/)
//! and the corpus replay test (crates/wire/tests/corpus.rs). Each function
//! parses `data`; when that succeeds it emits the Repr again and panics if
//! the round trip breaks (`parse(emit(parse(b))) == parse(b)`, and
//! `emit(parse(b)) == b` where the format is canonical). Malformed input
//! must return quietly: a panic here is a bug.
use super::*;

fn ips() -> (std::net::Ipv4Addr, std::net::Ipv4Addr) {
    (std::net::Ipv4Addr::new(192, 0, 2, 1), std::net::Ipv4Addr::new(198, 51, 100, 7))
}

/// 802.11 MAC frame without FCS (canonical), then the same bytes read as a
/// frame with FCS.
pub fn ieee80211(data: &[u8]) {
    use ieee80211::*;
    if let Ok(f) = MacFrame::new_checked(data) {
        let body = f.body();
        if let Ok(r) = MacFrameRepr::parse(&f) {
            let pl = matches!(r, MacFrameRepr::Data(_)).then_some(body);
            let b = r.to_bytes(pl, false).expect("emit of a parsed frame");
            assert_eq!(b, data, "802.11 frame not canonical: {r:?}");
            let r2 = MacFrameRepr::parse(&MacFrame::new_checked(&b[..]).unwrap()).unwrap();
            assert_eq!(r2, r);
            let with_fcs = r.to_bytes(pl, true).unwrap();
            assert_eq!(strip_fcs(&with_fcs).unwrap(), data);
        }
    }
    let _ = strip_fcs(data).map(|f| MacFrame::new_checked(f).map(|v| MacFrameRepr::parse(&v)));
}

pub fn radiotap(data: &[u8]) {
    use radiotap::*;
    if let Ok(h) = RadiotapHeader::new_checked(data) {
        let _ = h.payload();
        if let Ok(r) = RadiotapRepr::parse(&h) {
            let b = r.to_bytes(h.payload()).unwrap();
            let h2 = RadiotapHeader::new_checked(&b[..]).unwrap();
            assert_eq!(RadiotapRepr::parse(&h2).unwrap(), r);
            assert_eq!(h2.payload(), h.payload());
        }
    }
}

pub fn llc(data: &[u8]) {
    use llc::*;
    if let Ok(h) = SnapHeader::new_checked(data) {
        if let Ok(r) = SnapRepr::parse(&h) {
            let mut b = data.to_vec();
            r.emit(&mut SnapHeader::new_unchecked(&mut b[..])).unwrap();
            assert_eq!(b, data);
        }
    }
}

pub fn ethernet(data: &[u8]) {
    use ethernet::*;
    if let Ok(f) = EthernetFrame::new_checked(data) {
        if let Ok(r) = EthernetRepr::parse(&f) {
            assert_eq!(r.to_bytes(f.payload()).unwrap(), data);
        }
    }
}

/// IPv4 as given (the checksum rarely verifies on mutated bytes), then with
/// the checksum filled in so that every later check is reached.
pub fn ipv4(data: &[u8]) {
    use ipv4::*;
    let check = |bytes: &[u8]| {
        if let Ok(p) = Ipv4Packet::new_checked(bytes) {
            if let Ok(r) = Ipv4Repr::parse(&p) {
                let b = r.to_bytes(Some(p.payload())).unwrap();
                let p2 = Ipv4Packet::new_checked(&b[..]).unwrap();
                assert_eq!(Ipv4Repr::parse(&p2).unwrap(), r);
                // Canonical but for the checksum field (0x0000 and 0xffff
                // both verify when the other words sum to 0xffff).
                let total = p.total_len() as usize;
                let (mut x, mut y) = (b.clone(), bytes[..total].to_vec());
                x[10..12].fill(0);
                y[10..12].fill(0);
                assert_eq!(x, y);
            }
        }
    };
    check(data);
    let mut fixed = data.to_vec();
    let mut p = Ipv4Packet::new_unchecked(&mut fixed[..]);
    if p.check_len().is_ok() {
        p.fill_checksum();
        check(&fixed);
        let p = Ipv4Packet::new_checked(&fixed[..]).unwrap();
        assert!(p.reserved_flag() || Ipv4Repr::parse(&p).is_ok());
    }
}

/// TCP without the checksum, then the parsed Repr re-emitted must parse
/// (with its checksum) to itself.
pub fn tcp(data: &[u8]) {
    use tcp::*;
    if let Ok(s) = TcpSegment::new_checked(data) {
        let _ = s.options();
        if let Ok(r) = TcpRepr::parse(&s, None) {
            let (a, b) = ips();
            let out = r.to_bytes(a, b, Some(s.payload())).unwrap();
            let s2 = TcpSegment::new_checked(&out[..]).unwrap();
            assert_eq!(TcpRepr::parse(&s2, Some((a, b))).unwrap(), r);
            assert_eq!(s2.payload(), s.payload());
            // Canonical when the option area is: same bytes but checksum.
            if options_len(&r.options) == s.options().len()
                && s.options()[parse_len(&r.options)..].iter().all(|&x| x == 0)
            {
                let (mut x, mut y) = (out.clone(), data.to_vec());
                x[16..18].fill(0);
                y[16..18].fill(0);
                assert_eq!(x, y);
            }
        }
    }
}

fn parse_len(opts: &[tcp::TcpOption]) -> usize {
    opts.iter().map(tcp::TcpOption::len).sum()
}

pub fn udp(data: &[u8]) {
    use udp::*;
    if let Ok(d) = UdpDatagram::new_checked(data) {
        if let Ok(r) = UdpRepr::parse(&d, None) {
            let (a, b) = ips();
            let out = r.to_bytes(a, b, Some(d.payload())).unwrap();
            let d2 = UdpDatagram::new_checked(&out[..]).unwrap();
            assert_eq!(UdpRepr::parse(&d2, Some((a, b))).unwrap(), r);
            assert_eq!(&out[..6], &data[..6]);
        }
    }
}

/// A whole pcap record of the WLAN interface: radiotap, 802.11 (FCS if the
/// radiotap flags say so), LLC/SNAP, IPv4, TCP or UDP.
pub fn wlan_stack(data: &[u8]) {
    let _ = super::decode_wlan(data);
}
