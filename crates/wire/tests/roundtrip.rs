//! Property tests: parse(emit(x)) == x for every header Repr over generated
//! field and option combinations, emit(parse(b)) == b on emitted bytes, the
//! simulator's packets survive bytes and back, and arbitrary bytes never
//! make a parser panic (the fuzz targets' checks, run here on random input).
use proptest::prelude::*;
use std::net::Ipv4Addr;
use wifitcp_core::{FlowId, PacketId, SimTime};
use wifitcp_wire::codec::ethernet::{EthernetFrame, EthernetRepr};
use wifitcp_wire::codec::ieee80211::*;
use wifitcp_wire::codec::ipv4::{Ipv4Packet, Ipv4Repr};
use wifitcp_wire::codec::llc::{SnapHeader, SnapRepr};
use wifitcp_wire::codec::radiotap::{AmpduStatus, RadiotapHeader, RadiotapRepr};
use wifitcp_wire::codec::tcp::{options_len, TcpOption, TcpRepr, TcpSegment};
use wifitcp_wire::codec::udp::{UdpDatagram, UdpRepr};
use wifitcp_wire::codec::{selfcheck, MacAddress};
use wifitcp_wire::ip::{Ipv4Header, PROTO_TCP, PROTO_UDP};
use wifitcp_wire::sim_bytes;
use wifitcp_wire::{Packet, SackBlock, TcpFlags, TcpHeader, TcpOptions, UdpHeader};

fn addr() -> impl Strategy<Value = Ipv4Addr> {
    any::<[u8; 4]>().prop_map(Ipv4Addr::from)
}
fn mac() -> impl Strategy<Value = MacAddress> {
    any::<[u8; 6]>().prop_map(MacAddress)
}
fn sack_block() -> impl Strategy<Value = SackBlock> {
    (any::<u32>(), any::<u32>()).prop_map(|(left, right)| SackBlock { left, right })
}
fn tcp_option() -> impl Strategy<Value = TcpOption> {
    prop_oneof![
        Just(TcpOption::Nop),
        any::<u16>().prop_map(TcpOption::Mss),
        any::<u8>().prop_map(TcpOption::WindowScale),
        Just(TcpOption::SackPermitted),
        prop::collection::vec(sack_block(), 1..=4).prop_map(TcpOption::Sack),
        (any::<u32>(), any::<u32>()).prop_map(|(tsval, tsecr)| TcpOption::Timestamps { tsval, tsecr }),
        (9u8..=255, prop::collection::vec(any::<u8>(), 0..8))
            .prop_map(|(kind, data)| TcpOption::Unknown { kind, data }),
        (6u8..=7, prop::collection::vec(any::<u8>(), 0..8)).prop_map(|(kind, data)| TcpOption::Unknown { kind, data }),
    ]
}
fn tcp_options() -> impl Strategy<Value = Vec<TcpOption>> {
    prop::collection::vec(tcp_option(), 0..8).prop_filter("fits in 40 bytes", |o| options_len(o) <= 40)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn tcp_roundtrip(src_port: u16, dst_port: u16, seq: u32, ack: u32, reserved in 0u8..16, flags: u8,
                     window: u16, urgent: u16, options in tcp_options(),
                     payload in prop::collection::vec(any::<u8>(), 0..64), s in addr(), d in addr()) {
        let r = TcpRepr { src_port, dst_port, seq, ack, reserved, flags: TcpFlags(flags), window, urgent, options,
                          payload_len: payload.len() };
        let b = r.to_bytes(s, d, Some(&payload)).unwrap();
        let seg = TcpSegment::new_checked(&b[..]).unwrap();
        prop_assert_eq!(seg.payload(), &payload[..]);
        let back = TcpRepr::parse(&seg, Some((s, d))).unwrap();
        prop_assert_eq!(&back, &r);
        prop_assert_eq!(back.to_bytes(s, d, Some(&payload)).unwrap(), b);
    }

    #[test]
    fn ipv4_roundtrip(s in addr(), d in addr(), tos: u8, ident: u16, dont_frag: bool, more_frags: bool,
                      frag_offset in 0u16..8192, ttl: u8, protocol: u8, words in 0usize..=10,
                      opt_seed: u8, payload_len in 0usize..200) {
        let options = (0..words * 4).map(|i| opt_seed.wrapping_add(i as u8)).collect();
        let r = Ipv4Repr { src: s, dst: d, tos, ident, dont_frag, more_frags, frag_offset, ttl, protocol, options, payload_len };
        let b = r.to_bytes(None).unwrap();
        let back = Ipv4Repr::parse(&Ipv4Packet::new_checked(&b[..]).unwrap()).unwrap();
        prop_assert_eq!(&back, &r);
        prop_assert_eq!(back.to_bytes(None).unwrap(), b);
    }

    #[test]
    fn udp_roundtrip(src_port: u16, dst_port: u16, payload in prop::collection::vec(any::<u8>(), 0..64),
                     s in addr(), d in addr()) {
        let r = UdpRepr { src_port, dst_port, payload_len: payload.len() };
        let b = r.to_bytes(s, d, Some(&payload)).unwrap();
        let back = UdpRepr::parse(&UdpDatagram::new_checked(&b[..]).unwrap(), Some((s, d))).unwrap();
        prop_assert_eq!(&back, &r);
        prop_assert_eq!(back.to_bytes(s, d, Some(&payload)).unwrap(), b);
    }

    #[test]
    fn ethernet_and_snap_roundtrip(dst in mac(), src in mac(), ethertype in 0x0600u16..=0xffff, oui: [u8; 3],
                                   protocol: u16, payload in prop::collection::vec(any::<u8>(), 0..32)) {
        let e = EthernetRepr { dst, src, ethertype };
        let b = e.to_bytes(&payload).unwrap();
        let f = EthernetFrame::new_checked(&b[..]).unwrap();
        prop_assert_eq!(EthernetRepr::parse(&f).unwrap(), e);
        prop_assert_eq!(f.payload(), &payload[..]);
        let s = SnapRepr { oui, protocol };
        let mut v = [0u8; 8];
        s.emit(&mut SnapHeader::new_unchecked(&mut v[..])).unwrap();
        prop_assert_eq!(SnapRepr::parse(&SnapHeader::new_checked(&v[..]).unwrap()).unwrap(), s);
    }

    #[test]
    fn radiotap_roundtrip(flags: Option<u8>, rate: Option<u8>, channel: Option<(u16, u16)>, signal: Option<i8>,
                          ampdu: Option<(u32, u16, u8, u8)>,
                          frame in prop::collection::vec(any::<u8>(), 0..16)) {
        let ampdu = ampdu.map(|(reference, flags, delimiter_crc, reserved)| AmpduStatus { reference, flags, delimiter_crc, reserved });
        let r = RadiotapRepr { flags, rate_500kbps: rate, channel, antenna_signal_dbm: signal, ampdu };
        let b = r.to_bytes(&frame).unwrap();
        let h = RadiotapHeader::new_checked(&b[..]).unwrap();
        prop_assert_eq!(h.payload(), &frame[..]);
        let back = RadiotapRepr::parse(&h).unwrap();
        prop_assert_eq!(back, r);
        prop_assert_eq!(back.to_bytes(&frame).unwrap(), b);
    }

    #[test]
    fn mac_frame_roundtrip(r in mac_frame(), body_seed: u8) {
        let body: Vec<u8> = match &r {
            MacFrameRepr::Data(d) => (0..d.payload_len).map(|i| body_seed.wrapping_mul(i as u8)).collect(),
            _ => vec![],
        };
        let pl = matches!(r, MacFrameRepr::Data(_)).then_some(&body[..]);
        let b = r.to_bytes(pl, false).unwrap();
        let f = MacFrame::new_checked(&b[..]).unwrap();
        let back = MacFrameRepr::parse(&f).unwrap();
        prop_assert_eq!(&back, &r);
        prop_assert_eq!(back.to_bytes(pl, false).unwrap(), b.clone());
        let with_fcs = r.to_bytes(pl, true).unwrap();
        prop_assert_eq!(strip_fcs(&with_fcs).unwrap(), &b[..]);
    }

    #[test]
    fn simulated_packets_survive_bytes(p in sim_packet()) {
        let b = sim_bytes::datagram(&p);
        prop_assert_eq!(&b, &p.to_bytes());
        prop_assert_eq!(b.len() as u32, p.ip_len());
        let back = sim_bytes::from_datagram(&b, p.id, p.flow, p.created).unwrap();
        prop_assert_eq!(back, p);
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..128)) {
        selfcheck::ieee80211(&data);
        selfcheck::radiotap(&data);
        selfcheck::llc(&data);
        selfcheck::ethernet(&data);
        selfcheck::ipv4(&data);
        selfcheck::tcp(&data);
        selfcheck::udp(&data);
        selfcheck::wlan_stack(&data);
    }
}

fn fc_flags() -> impl Strategy<Value = FcFlags> {
    any::<u8>().prop_map(FcFlags)
}
fn seq_ctrl() -> impl Strategy<Value = SeqCtrl> {
    (0u8..16, 0u16..4096).prop_map(|(frag, seq)| SeqCtrl { frag, seq })
}

fn data_frame() -> impl Strategy<Value = MacFrameRepr> {
    (0u8..16, fc_flags(), any::<u16>(), mac(), mac(), mac(), seq_ctrl(), mac(), any::<u16>(), any::<u32>(), 0usize..64)
        .prop_map(|(st, flags, duration, a1, a2, a3, sc, a4, qos, ht, n)| {
            let wds = flags.has(FcFlags::TO_DS) && flags.has(FcFlags::FROM_DS);
            let is_qos = st & subtype::QOS_BIT != 0;
            MacFrameRepr::Data(DataFrameRepr {
                subtype: st,
                flags,
                duration,
                addr1: a1,
                addr2: a2,
                addr3: a3,
                seq_ctrl: sc,
                addr4: wds.then_some(a4),
                qos_control: is_qos.then_some(qos),
                ht_control: (is_qos && flags.has(FcFlags::ORDER)).then_some(ht),
                payload_len: n,
            })
        })
}

fn element() -> impl Strategy<Value = Element> {
    let bytes = |lo: usize, hi: usize| prop::collection::vec(any::<u8>(), lo..=hi);
    prop_oneof![
        bytes(0, 32).prop_map(Element::Ssid),
        bytes(1, 8).prop_map(Element::SupportedRates),
        any::<u8>().prop_map(Element::DsssParameterSet),
        (any::<u8>(), any::<u8>(), any::<u16>(), any::<u16>()).prop_map(
            |(count, period, max_duration, dur_remaining)| {
                Element::CfParameterSet { count, period, max_duration, dur_remaining }
            }
        ),
        (any::<u8>(), any::<u8>(), any::<u8>(), bytes(1, 251)).prop_map(
            |(dtim_count, dtim_period, bitmap_control, bitmap)| {
                Element::Tim { dtim_count, dtim_period, bitmap_control, bitmap }
            }
        ),
        (6u8..=255, bytes(0, 255)).prop_map(|(id, data)| Element::Unknown { id, data }),
        Just(Element::Unknown { id: 2, data: vec![1, 2] }),
    ]
}

fn mac_frame() -> impl Strategy<Value = MacFrameRepr> {
    let no_order = fc_flags().prop_map(|f| FcFlags(f.0 & !FcFlags::ORDER));
    prop_oneof![
        data_frame(),
        (fc_flags(), any::<u16>(), mac(), mac()).prop_map(|(flags, duration, ra, ta)| MacFrameRepr::Rts {
            flags,
            duration,
            ra,
            ta
        }),
        (fc_flags(), any::<u16>(), mac()).prop_map(|(flags, duration, ra)| MacFrameRepr::Cts { flags, duration, ra }),
        (fc_flags(), any::<u16>(), mac()).prop_map(|(flags, duration, ra)| MacFrameRepr::Ack { flags, duration, ra }),
        (fc_flags(), any::<u16>(), mac(), mac()).prop_map(|(flags, duration, ra, bssid)| MacFrameRepr::CfEnd {
            flags,
            duration,
            ra,
            bssid
        }),
        (fc_flags(), any::<u16>(), mac(), mac(), any::<u16>(), seq_ctrl()).prop_map(
            |(flags, duration, ra, ta, c, start)| {
                let control = c & !(ba_control::MULTI_TID | ba_control::GCR);
                MacFrameRepr::BlockAckReq(BlockAckReqRepr { flags, duration, ra, ta, control, start })
            }
        ),
        (fc_flags(), any::<u16>(), mac(), mac(), any::<u16>(), seq_ctrl(), any::<u64>()).prop_map(
            |(flags, duration, ra, ta, c, start, bitmap)| {
                let control = c & !(ba_control::MULTI_TID | ba_control::GCR) | ba_control::COMPRESSED_BITMAP;
                MacFrameRepr::BlockAck(BlockAckRepr { flags, duration, ra, ta, control, start, bitmap })
            }
        ),
        (fc_flags(), any::<u16>(), mac(), mac(), any::<u16>(), seq_ctrl(), prop::collection::vec(any::<u16>(), 64))
            .prop_map(|(flags, duration, ra, ta, c, start, words)| {
                let control = c & !ba_control::VARIANT;
                let bitmap: [u16; 64] = words.try_into().expect("64 words");
                MacFrameRepr::BasicBlockAck(BasicBlockAckRepr { flags, duration, ra, ta, control, start, bitmap })
            }),
        (fc_flags(), any::<u16>(), mac(), mac()).prop_map(|(flags, duration, ra, bssid)| MacFrameRepr::CfEndAck {
            flags,
            duration,
            ra,
            bssid
        }),
        (
            no_order,
            any::<u16>(),
            mac(),
            mac(),
            mac(),
            seq_ctrl(),
            any::<u64>(),
            any::<u16>(),
            any::<u16>(),
            prop::collection::vec(element(), 0..6)
        )
            .prop_map(
                |(flags, duration, da, sa, bssid, seq_ctrl, timestamp, beacon_interval, capability, elements)| {
                    MacFrameRepr::Beacon(BeaconRepr {
                        flags,
                        duration,
                        da,
                        sa,
                        bssid,
                        seq_ctrl,
                        timestamp,
                        beacon_interval,
                        capability,
                        elements,
                    })
                }
            ),
    ]
}

fn sim_options() -> impl Strategy<Value = TcpOptions> {
    (
        any::<Option<u16>>(),
        any::<Option<u8>>(),
        any::<bool>(),
        any::<Option<(u32, u32)>>(),
        prop::collection::vec(sack_block(), 0..=4),
    )
        .prop_map(|(mss, window_scale, sack_permitted, timestamps, sack)| TcpOptions {
            mss,
            window_scale,
            sack_permitted,
            timestamps,
            sack: sack.into(),
        })
        .prop_filter("fits in 40 bytes", |o| o.encoded_len() <= 40)
}

fn sim_packet() -> impl Strategy<Value = Packet> {
    let ip = || (addr(), addr(), any::<u8>(), any::<u8>(), any::<u16>());
    let tcp = (any::<u16>(), any::<u16>(), any::<u32>(), any::<u32>(), any::<u8>(), any::<u16>(), sim_options());
    prop_oneof![
        (ip(), tcp, 0u32..3000, any::<u64>()).prop_map(
            |((s, d, tos, ttl, ident), (sp, dp, seq, ack, fl, win, o), n, id)| {
                let ip = Ipv4Header { src: s, dst: d, tos, ttl, ident, protocol: PROTO_TCP };
                let t =
                    TcpHeader { src_port: sp, dst_port: dp, seq, ack, flags: TcpFlags(fl), window: win, options: o };
                Packet::new_tcp(PacketId(id), FlowId(7), SimTime::from_nanos(id / 3), ip, t, n)
            }
        ),
        (ip(), any::<u16>(), any::<u16>(), 0u32..3000).prop_map(|((s, d, tos, ttl, ident), sp, dp, n)| {
            let ip = Ipv4Header { src: s, dst: d, tos, ttl, ident, protocol: PROTO_UDP };
            Packet::new_udp(PacketId(1), FlowId(2), SimTime::ZERO, ip, UdpHeader { src_port: sp, dst_port: dp }, n)
        }),
    ]
}
