//! Packet captures of a run (`wifitcp run --pcap DIR`): one pcap file per
//! interface, written with `wifitcp_wire::pcap::PcapTap`.
//!
//! - `wlan.pcap`: every 802.11 frame of the BSS (data, ACK, RTS, CTS) at
//!   the instant it starts on the air, with a radiotap header (rate,
//!   channel; FCS included), whatever becomes of it: a monitor beside the
//!   transmitters, so collided and corrupted frames are there too.
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
use wifitcp_wifi::mac::{Frame, FrameKind};
use wifitcp_wifi::medium::FrameTap;
use wifitcp_wifi::phy::PhyStandard;
use wifitcp_wire::codec::radiotap::RadiotapRepr;
use wifitcp_wire::pcap::PcapTap;
use wifitcp_wire::sim_bytes::{self, Control, ControlFrame, Snap, WlanHop};
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
        // (5180 MHz) for 802.11a, channel 1 (2412 MHz) for 802.11b/g.
        let freq_mhz = if standard == PhyStandard::Dot11a { 5180 } else { 2412 };
        Box::new(WlanTap { cap: self.clone(), freq_mhz, is_ap })
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
}

impl FrameTap for WlanTap {
    fn frame(&mut self, now: SimTime, f: &Frame, msdu: Option<&Packet>) {
        let radio: RadiotapRepr = sim_bytes::radiotap(f.rate.0 * 100, self.freq_mhz, None);
        let (ta, ra) = (f.ta.0, f.ra.0);
        let is_ap = |i: u32| self.is_ap.get(i as usize).copied().unwrap_or(false);
        let mut s = self.cap.state.lock().expect("not poisoned");
        match (f.kind, msdu) {
            (FrameKind::Data | FrameKind::QosData, Some(p)) => {
                let ap = if is_ap(ta) {
                    Some(ta)
                } else if is_ap(ra) {
                    Some(ra)
                } else {
                    None
                };
                let qos_tid = (f.kind == FrameKind::QosData).then(|| f.mpdus.first().map_or(0, |m| m.tid));
                let hop = WlanHop { ta, ra, ap, seq: f.seq, retry: f.retry, duration: f.duration, qos_tid };
                s.write(|t| t.wlan_data(now, "wlan", &radio, &hop, p));
            }
            (FrameKind::Data | FrameKind::QosData, None) => {} // no MSDU: nothing to show
            (kind, _) => {
                let kind = match kind {
                    FrameKind::Ack => Control::Ack,
                    FrameKind::Rts => Control::Rts,
                    _ => Control::Cts,
                };
                let c = ControlFrame { kind, ta, ra, duration: f.duration };
                s.write(|t| t.wlan_control(now, "wlan", &radio, &c));
            }
        }
    }
}
