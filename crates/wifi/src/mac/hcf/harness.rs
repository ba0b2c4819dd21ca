//! Test support shared by the HCF's whole-medium tests (`tests.rs`,
//! `mu_tests.rs`, `ul_tests.rs`): the 802.11ax parameters they run at and
//! the event loop that drives a `Bss` from its own outputs.
use super::{Hcf, HcfParams};
use crate::mac::edca::EdcaSet;
use crate::medium::{Bss, BssOutput};
use crate::phy::{PhyConfig, PhyStandard, PhyTiming};
use wifitcp_core::{EventQueue, FlowId, PacketId, SimTime};
use wifitcp_wire::ip::PROTO_UDP;
use wifitcp_wire::{Ipv4Addr, Ipv4Header, Packet, UdpHeader};

/// HE MCS 11 at 80 MHz, A-MPDUs of up to 64 MPDUs with BlockAck, the
/// given EDCA parameters.
pub(super) fn he_params(edca: EdcaSet) -> HcfParams {
    let mut c = PhyConfig::new(PhyStandard::Dot11ax, 0.0);
    c.mcs = Some(11);
    c.channel_width_mhz = Some(80);
    HcfParams {
        timing: PhyTiming::from_config(&c).unwrap(),
        edca,
        retry_limit: 7,
        block_ack: true,
        ba_window: 64,
        max_mpdus: 64,
        max_ampdu_bytes: 65_535,
        no_ack: [false; 4],
        bar_after_missed_ba: false,
        rts_threshold: 65535,
        poll_hold: None,
        mac_queue: 0,
    }
}

/// A 1500-octet IP datagram (MSDU 1508 octets with LLC/SNAP) from `src`
/// to `dst` (the last octet of 10.0.0.x).
pub(super) fn udp_pkt(id: u64, src: u8, dst: u8) -> Packet {
    let ip = Ipv4Header::new(Ipv4Addr::new(10, 0, 0, src), Ipv4Addr::new(10, 0, 0, dst), PROTO_UDP);
    Packet::new_udp(PacketId(id), FlowId(0), SimTime::ZERO, ip, UdpHeader { src_port: 1, dst_port: 2 }, 1472)
}

/// What `drive` counted.
pub(super) struct Driven {
    /// Events handled (wake-ups and transmission ends).
    pub events: u64,
    /// Transmissions started on the medium.
    pub txs: u64,
}

/// Run `bss` from its pending outputs `out` until `end`: its wake-ups
/// and transmission ends go on an event queue; every other output goes
/// to `on(bss, now, output, more)` in emission order, which may give the
/// medium input (its outputs appended to `more` are handled in turn).
pub(super) fn drive(
    bss: &mut Bss<Hcf>,
    mut out: Vec<BssOutput>,
    end: SimTime,
    mut on: impl FnMut(&mut Bss<Hcf>, SimTime, BssOutput, &mut Vec<BssOutput>),
) -> Driven {
    let mut q = EventQueue::new();
    let mut d = Driven { events: 0, txs: 0 };
    loop {
        let mut i = 0;
        while i < out.len() {
            match out[i] {
                BssOutput::Wake { at } => {
                    q.push(at, u32::MAX);
                }
                BssOutput::TxEnd { id, n, at } => {
                    for id in BssOutput::tx_ids(id, n) {
                        d.txs += 1;
                        q.push(at, id);
                    }
                }
                _ => {
                    let o = std::mem::replace(&mut out[i], BssOutput::Wake { at: SimTime::NEVER });
                    let mut more = Vec::new();
                    on(bss, q.now(), o, &mut more);
                    out.extend(more);
                }
            }
            i += 1;
        }
        out.clear();
        let Some((now, ev)) = q.pop() else { break };
        if now > end {
            break;
        }
        d.events += 1;
        if ev == u32::MAX {
            bss.wake(now, &mut out);
        } else {
            bss.tx_end(now, ev, &mut out);
        }
    }
    d
}
