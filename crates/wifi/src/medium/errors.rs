//! Frame error models the medium applies to data frames that did not
//! collide.
use crate::mac::{Frame, FrameKind, MacAddr};
use wifitcp_core::RngStream;

/// Probability that a data frame from `ta` to `ra` is received correctly
/// when no collision occurs. May draw from `rng` (e.g. shadowing).
pub trait FrameErrorModel {
    fn success_prob(&mut self, ta: MacAddr, ra: MacAddr, frame: &Frame, rng: &mut RngStream) -> f64;
}

/// A [`Channel`](crate::channel::Channel) model with node positions: SNR
/// classes, SNR-based or ns-2 threshold reception. BSS member `i` is
/// `NodeId(i)` for the channel (0 = AP).
pub struct ChannelErrors {
    pub channel: crate::channel::Channel,
    pub positions: Vec<crate::channel::Position>,
    pub tx_power_dbm: f64,
    pub preamble: crate::channel::Preamble,
}

impl FrameErrorModel for ChannelErrors {
    fn success_prob(&mut self, ta: MacAddr, ra: MacAddr, f: &Frame, rng: &mut RngStream) -> f64 {
        use crate::channel::{FrameKind as K, FrameTx, Mode};
        let mode = Mode::from_kbps(f.rate.0 * 100).unwrap_or(Mode::Ofdm6);
        let tx = FrameTx {
            tx: wifitcp_core::NodeId(ta.0),
            rx: wifitcp_core::NodeId(ra.0),
            tx_pos: self.positions[ta.0 as usize],
            rx_pos: self.positions[ra.0 as usize],
            tx_power_dbm: self.tx_power_dbm,
            mode,
            preamble: self.preamble,
            bits: mode.data_bits(f.mpdu_bytes),
            kind: if f.kind == FrameKind::Data { K::Data } else { K::Control },
        };
        self.channel.frame_success_prob(&tx, rng)
    }
}

/// A fixed frame error rate per station and direction.
#[derive(Clone, Debug, Default)]
pub struct FixedPer {
    /// Error rate of frames from station i to its AP.
    pub uplink: Vec<f64>,
    /// Error rate of frames from an AP to station i.
    pub downlink: Vec<f64>,
    /// Which BSS members are APs (empty: member 0 only).
    pub is_ap: Vec<bool>,
}

impl FixedPer {
    fn ap(&self, a: MacAddr) -> bool {
        self.is_ap.get(a.0 as usize).copied().unwrap_or(a.0 == 0)
    }
}

impl FrameErrorModel for FixedPer {
    fn success_prob(&mut self, ta: MacAddr, ra: MacAddr, _f: &Frame, _rng: &mut RngStream) -> f64 {
        let per = if self.ap(ra) && !self.ap(ta) {
            self.uplink.get(ta.0 as usize).copied().unwrap_or(0.0)
        } else if self.ap(ta) && !self.ap(ra) {
            self.downlink.get(ra.0 as usize).copied().unwrap_or(0.0)
        } else {
            0.0
        };
        1.0 - per
    }
}

