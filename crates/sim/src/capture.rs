//! Packet captures of a run (`wifitcp run --pcap DIR`): one pcap file per
//! interface, written with `wifitcp_wire::pcap::PcapTap`.
//!
//! - `wlan.pcap`: every 802.11 frame of the BSS (data and the data-type
//!   frames without a body, ACK, RTS, CTS, CF-End, BlockAckReq, BlockAck)
//!   at the instant it starts on the air, with a radiotap header (rate,
//!   channel; FCS included), whatever becomes of it: a monitor beside the
//!   transmitters, so collided and corrupted frames are there too. An
//!   A-MPDU is one record per MPDU, each with the radiotap A-MPDU status
//!   field. QoS Data carries the Ack Policy it was sent with. Beacons are
//!   not written (the MAC models their airtime, not their body).
//! - `link-<a>-<b>.pcap`: every packet carried by the wired link between
//!   nodes a and b, both directions, as Ethernet II, at the instant it
//!   reaches the far end (a tap on the cable at the receiving side).
//!
//! Frames that carry payload bytes are kept up to the end of their TCP/UDP
//! header (`Snap::Headers`): the simulator's payload is zeros, so the
//! record holds every header byte and the frame's original length (pcap's
//! caplen < len, which Wireshark shows as "packet size limited during
//! capture"), and the checksums in the headers are those of the whole
//! frame; the FCS of a cut frame is not written. Frames without payload
//! (TCP ACKs, 802.11 control frames) are kept whole, FCS included.
//!
//! Off by default, and then nothing on the per-packet path touches it (one
//! test per frame in the medium, one per link delivery). The first I/O
//! error (a full disk) stops the capture; the run then fails with
//! `pcap: DIR: reason`.
use std::path::Path;
use std::sync::{Arc, Mutex};
use wifitcp_core::SimTime;
use wifitcp_wifi::mac::{AckPolicy, Frame, FrameKind, Mpdu, MpduBody};
use wifitcp_wifi::medium::FrameTap;
use wifitcp_wifi::phy::PhyStandard;
use wifitcp_wire::codec::radiotap::{ampdu, AmpduStatus, RadiotapRepr};
use wifitcp_wire::pcap::PcapTap;
use wifitcp_wire::sim_bytes::{self, Control, ControlFrame, DataKind, QosAck, Snap, WlanHop};
use wifitcp_wire::wifi_frame::BLOCK_ACK_LEN;
use wifitcp_wire::Packet;

struct State {
    tap: Option<PcapTap>,
    dir: String,
    error: Option<String>,
}

impl State {
    fn write(&mut self, f: impl FnOnce(&mut PcapTap) -> std::io::Result<()>) {
        if let Some(tap) = self.tap.as_mut() {
            if let Err(e) = f(tap) {
                self.error = Some(format!("pcap: {}: {e}", self.dir));
                self.tap = None;
            }
        }
    }
}

/// The capture of one run, shared by the WLAN tap and the run loop.
#[derive(Clone)]
pub struct Capture {
    state: Arc<Mutex<State>>,
}

impl Capture {
    /// Create `dir` and check it can be written (before the run starts).
    pub fn create(dir: &Path) -> Result<Capture, String> {
        let tap = PcapTap::create_with(dir, Snap::Headers).map_err(|e| format!("pcap: {}: {e}", dir.display()))?;
        Ok(Capture {
            state: Arc::new(Mutex::new(State { tap: Some(tap), dir: dir.display().to_string(), error: None })),
        })
    }

    /// The tap the medium calls for every frame; `is_ap[i]` tells which
    /// BSS members are APs (for the To/From DS bits).
    pub fn wlan_tap(&self, standard: PhyStandard, is_ap: Vec<bool>) -> Box<dyn FrameTap> {
        // A channel of the band, for the radiotap header: channel 36
        // (5180 MHz) for 802.11a, 802.11ac and 802.11ax (also at 6 GHz),
        // channel 1 (2412 MHz) for 802.11b/g/n.
        let five = matches!(standard, PhyStandard::Dot11a | PhyStandard::Dot11ac | PhyStandard::Dot11ax);
        let freq_mhz = if five { 5180 } else { 2412 };
        let ht = matches!(standard, PhyStandard::Dot11n | PhyStandard::Dot11ac | PhyStandard::Dot11ax);
        Box::new(WlanTap { cap: self.clone(), freq_mhz, is_ap, ampdus: 0, ht })
    }

    /// Packet `p` reached node `to` from node `from` over the wired link
    /// whose file is `iface`.
    pub fn wired(&self, at: SimTime, iface: &str, from: usize, to: usize, p: &Packet) {
        self.state.lock().expect("not poisoned").write(|t| t.wired(at, iface, from as u32, to as u32, p));
    }

    /// Flush every file; the first error of the run, if any.
    pub fn finish(&self) -> Result<(), String> {
        let mut s = self.state.lock().expect("not poisoned");
        if let Some(tap) = s.tap.take() {
            if let Err(e) = tap.finish() {
                let msg = format!("pcap: {}: {e}", s.dir);
                s.error.get_or_insert(msg);
            }
        }
        s.error.take().map_or(Ok(()), Err)
    }
}

struct WlanTap {
    cap: Capture,
    freq_mhz: u16,
    is_ap: Vec<bool>,
    /// An HT PHY (802.11n): BlockAckReqs are compressed.
    ht: bool,
    /// Which A-MPDU this is (radiotap A-MPDU reference number), counted
    /// over the run.
    ampdus: u32,
}

/// The QoS Ack Policy of an MPDU (9.2.4.5.4): No Ack for the No Ack
/// policy; Block Ack for the MPDUs of a non-HT block (closed by a
/// BlockAckReq); Normal Ack for a single MPDU and for the MPDUs of an
/// A-MPDU (there it is the implicit BlockAckReq, 10.25.6.3 of
/// 802.11-2020).
fn qos_ack(a: AckPolicy) -> QosAck {
    match a {
        AckPolicy::Normal => QosAck::Normal,
        AckPolicy::NoAck => QosAck::NoAck,
        AckPolicy::BlockAck => QosAck::BlockAck,
    }
}

impl FrameTap for WlanTap {
    fn frame(&mut self, now: SimTime, f: &Frame, _msdu: Option<&Packet>) {
        let mut radio: RadiotapRepr = sim_bytes::radiotap(f.rate.0 * 100, self.freq_mhz, None);
        let (ta, ra) = (f.ta.0, f.ra.0);
        let is_ap = |i: u32| self.is_ap.get(i as usize).copied().unwrap_or(false);
        let ap = if is_ap(ta) {
            Some(ta)
        } else if is_ap(ra) {
            Some(ra)
        } else {
            None
        };
        let hop_of = |m: Option<&Mpdu>, kind: DataKind| WlanHop {
            ta,
            ra,
            ap,
            seq: m.map_or(f.seq, |m| m.seq),
            retry: m.map_or(f.retry, |m| m.retry),
            duration: f.duration,
            kind,
        };
        let first = f.mpdus.first();
        let tid = first.map_or(0, |m| m.tid);
        let qos = |m: &Mpdu| DataKind::Qos { tid: m.tid, ack: qos_ack(m.ack) };
        let mut s = self.cap.state.lock().expect("not poisoned");
        match f.kind {
            FrameKind::Data | FrameKind::QosData | FrameKind::DataCf { .. } => {
                // An A-MPDU is one record per MPDU, each with the radiotap
                // A-MPDU status field (field 20: the A-MPDU's reference
                // number, the last subframe flagged), all stamped at the
                // PPDU's start.
                let n = f.mpdus.len();
                let reference = self.ampdus;
                if n > 1 {
                    self.ampdus = self.ampdus.wrapping_add(1);
                }
                for (i, m) in f.mpdus.iter().enumerate() {
                    let Some(p) = m.msdu() else { continue }; // no MSDU: nothing to show
                    let kind = match f.kind {
                        FrameKind::Data => DataKind::Data,
                        FrameKind::DataCf { ack, poll } => DataKind::DataCf { ack, poll },
                        _ => qos(m),
                    };
                    if n > 1 {
                        let last = if i + 1 == n { ampdu::LAST } else { 0 };
                        radio.ampdu =
                            Some(AmpduStatus { reference, flags: ampdu::LAST_KNOWN | last, ..Default::default() });
                    }
                    let hop = hop_of(Some(m), kind);
                    s.write(|t| t.wlan_data(now, "wlan", &radio, &hop, p));
                }
            }
            FrameKind::Null
            | FrameKind::CfAck
            | FrameKind::CfPoll
            | FrameKind::CfAckPoll
            | FrameKind::QosNull
            | FrameKind::QosCfPoll => {
                let kind = match f.kind {
                    FrameKind::QosNull => {
                        DataKind::QosNull { tid, ack: first.map_or(QosAck::Normal, |m| qos_ack(m.ack)) }
                    }
                    // The granted TXOP (the poll's Duration) in units of
                    // 32 us, rounded up (9.2.4.5.3).
                    FrameKind::QosCfPoll => {
                        DataKind::QosCfPoll { tid, txop_32us: f.duration.as_nanos().div_ceil(32_000).min(255) as u8 }
                    }
                    k => DataKind::NoData { ack: k.cf_ack(), poll: k.cf_poll() },
                };
                let hop = hop_of(first, kind);
                s.write(|t| t.wlan_empty(now, "wlan", &radio, &hop));
            }
            // A beacon's body (timestamp, elements) is not modelled by the
            // MAC: not written; nor is a Trigger frame's User Info list.
            FrameKind::Beacon | FrameKind::Trigger => {}
            FrameKind::Ack
            | FrameKind::Rts
            | FrameKind::Cts
            | FrameKind::CfEnd
            | FrameKind::CfEndAck
            | FrameKind::BlockAck
            | FrameKind::BlockAckReq => {
                // Basic or compressed as sent: a compressed BlockAck is
                // BLOCK_ACK_LEN octets (HT, 9.3.1.8), a basic one longer;
                // the MACs send compressed BlockAckReqs on HT and basic
                // ones closing a non-HT block.
                let ht = self.ht;
                let kind = match (f.kind, first.map(|m| &m.body)) {
                    (FrameKind::Ack, _) => Control::Ack,
                    (FrameKind::Rts, _) => Control::Rts,
                    (FrameKind::Cts, _) => Control::Cts,
                    (FrameKind::CfEnd, _) => Control::CfEnd,
                    (FrameKind::CfEndAck, _) => Control::CfEndAck,
                    // The first 64 bits of the bitmap: a 256-bit HE
                    // BlockAck is written as a 64-bit one.
                    (FrameKind::BlockAck, Some(&MpduBody::BlockAck { tid, start_seq, ref bitmap })) => {
                        Control::BlockAck {
                            tid,
                            start_seq,
                            bitmap: bitmap.low(),
                            // 64- or 256-bit compressed (HE: 24 octets more).
                            compressed: f.mpdu_bytes == BLOCK_ACK_LEN || f.mpdu_bytes == BLOCK_ACK_LEN + 24,
                        }
                    }
                    (FrameKind::BlockAckReq, Some(&MpduBody::BlockAckReq { tid, start_seq })) => {
                        Control::BlockAckReq { tid, start_seq, compressed: ht }
                    }
                    _ => return, // a BlockAck(Req) without its body: nothing to show
                };
                let c = ControlFrame { kind, ta, ra, duration: f.duration };
                s.write(|t| t.wlan_control(now, "wlan", &radio, &c));
            }
        }
    }
}
