//! Frame error models the medium applies to every frame (data and
//! control) that did not collide; each model decides which kinds it hits.
use crate::channel::propagation::Position;
use crate::mac::{Frame, MacAddr};
use crate::phy::ppdu::RuLink;
use wifitcp_core::{RngStream, SimTime};

/// Probability that a frame (data or control) from `ta` to `ra`, ending at
/// `now`, is received correctly when no collision occurs (`now` lets a
/// model follow moving nodes). May draw from `rng` (e.g.
/// shadowing). A model that spares a frame returns exactly 1.0 and draws
/// nothing (the medium then draws nothing either), so sparing control
/// frames leaves every draw as it was.
pub trait FrameErrorModel {
    fn success_prob(&mut self, now: SimTime, ta: MacAddr, ra: MacAddr, frame: &Frame, rng: &mut RngStream) -> f64;
    /// Whether `success_prob` can be below 1 for a control frame; a model
    /// that says no is not asked about control frames (a shortcut: the
    /// answer would be 1, which draws nothing).
    fn may_hit_control_frames(&self) -> bool {
        true
    }
    /// Whether `success_prob` can be below 1 for a frame that carries
    /// MSDUs; a model that says no is not asked about such frames (the
    /// answer would be 1, which draws nothing).
    fn may_hit_data_frames(&self) -> bool {
        true
    }
    /// An aggregate's success split in two, (the PHY header, the whole
    /// PSDU), whose product is `success_prob`: the medium draws the header
    /// once per PPDU (if below 1) and each MPDU on its own share of the
    /// PSDU. The default puts everything in the PSDU (1, `success_prob`),
    /// so a model without a separate header draws exactly what it did
    /// before.
    fn ppdu_success_parts(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        frame: &Frame,
        rng: &mut RngStream,
    ) -> (f64, f64) {
        (1.0, self.success_prob(now, ta, ra, frame, rng))
    }
    /// `ppdu_success_parts` of one user's PSDU `frame` in an HE MU or HE TB
    /// PPDU, judged on its resource unit `ru` (`TxVector::ru_error_params`).
    /// The default judges it as `ppdu_success_parts` does (models without
    /// an SNR have nothing per RU).
    fn ru_success_parts(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        frame: &Frame,
        _ru: RuLink,
        rng: &mut RngStream,
    ) -> (f64, f64) {
        self.ppdu_success_parts(now, ta, ra, frame, rng)
    }
    /// As `success_prob`, under the interference of other frames at the
    /// receiver (the hidden-node medium, `sense`): `chunks` splits the frame
    /// into spans of constant interference, (duration in ns, interference
    /// in mW), in order; `ru`: one user's PSDU of an HE TB PPDU on its
    /// resource unit (as `ru_success_parts`). The default keeps the
    /// all-or-nothing rule: any interference destroys the frame (no
    /// capture).
    #[allow(clippy::too_many_arguments)]
    fn success_prob_with_interference(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        frame: &Frame,
        ru: Option<RuLink>,
        chunks: &[(u64, f64)],
        rng: &mut RngStream,
    ) -> f64 {
        if chunks.iter().any(|c| c.1 > 0.0) {
            0.0
        } else {
            success_alone(self, now, ta, ra, frame, ru, rng)
        }
    }
    /// The PHY header's part of `success_prob_with_interference` (the
    /// signal fields of an HT, VHT or HE PPDU, `ppdu_success_parts`'s
    /// first part) under the interference spans `chunks` it covers. The
    /// default: lost to any interference, else 1 (a model without a
    /// separate header judges it with the PSDU).
    #[allow(clippy::too_many_arguments)]
    fn header_prob_with_interference(
        &mut self,
        _now: SimTime,
        _ta: MacAddr,
        _ra: MacAddr,
        _frame: &Frame,
        _ru: Option<RuLink>,
        chunks: &[(u64, f64)],
        _rng: &mut RngStream,
    ) -> f64 {
        if chunks.iter().any(|c| c.1 > 0.0) {
            0.0
        } else {
            1.0
        }
    }
    /// Mean received power (dBm, no shadowing) at `ra` of a frame sent by
    /// `ta` at time zero; `None` for models without power (who hears whom
    /// is then "everyone").
    fn mean_rx_dbm(&self, _ta: MacAddr, _ra: MacAddr) -> Option<f64> {
        None
    }
    /// Where member `i` is at `now` (a live view for a stepping driver; the
    /// models' positions do not depend on when they are asked for, so
    /// asking changes no result); `None` for models without positions.
    fn position_of(&mut self, _now: SimTime, _i: usize) -> Option<Position> {
        None
    }
}

/// `success_prob` of `frame`, or of one user's PSDU on its RU `ru` (the
/// product of `ru_success_parts`): a frame met by no interference.
fn success_alone<E: FrameErrorModel + ?Sized>(
    e: &mut E,
    now: SimTime,
    ta: MacAddr,
    ra: MacAddr,
    frame: &Frame,
    ru: Option<RuLink>,
    rng: &mut RngStream,
) -> f64 {
    match ru {
        None => e.success_prob(now, ta, ra, frame, rng),
        Some(ru) => {
            let (h, d) = e.ru_success_parts(now, ta, ra, frame, ru, rng);
            h * d
        }
    }
}

/// ns-2 `Mac/802_11 CPThresh_` (10 dB): a frame survives an overlapping
/// one at its receiver if it is at least this much stronger
/// (`Mac802_11::capture`). The threshold model's capture rule.
pub const CAPTURE_THRESHOLD_DB: f64 = 10.0;

/// The radio of one BSS member beyond the channel's common parameters
/// (`channel.ap_tx_power_dbm`, `ap_antenna_gain_dbi`, `sta_antenna_gain_dbi`,
/// `sta_antenna`, power control).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeRadio {
    pub tx_power_dbm: f64,
    /// Antenna gain toward an AP, dBi.
    pub gain_to_ap_dbi: f64,
    /// Antenna gain toward a station, dBi.
    pub gain_to_sta_dbi: f64,
    pub is_ap: bool,
    /// A directional antenna whose gain depends on the bearing of the
    /// other end (`channel.sta_antenna = "beam"`): used instead of the two
    /// gains above.
    pub beam: Option<crate::channel::antenna::Beam>,
}

/// A [`Channel`](crate::channel::Channel) model with node positions: SNR
/// classes, SNR-based or ns-2 threshold reception. BSS member `i` is
/// `NodeId(i)` for the channel (0 = AP). Control frames are judged by the
/// model: SNR classes by their `frames` scope, the SNR model by the frame's
/// bits at its own (control-response) rate, the threshold model by received
/// power with the frame's own shadowing draw. With `ht` set (802.11n),
/// data frames are HT-mixed PPDUs sent with that vector
/// ([`crate::channel::ChannelModel::ht_success_parts`]); control frames
/// keep their legacy rate.
pub struct ChannelErrors {
    pub channel: crate::channel::Channel,
    pub positions: Vec<crate::channel::Position>,
    pub tx_power_dbm: f64,
    pub preamble: crate::channel::Preamble,
    /// Per-member transmit power and antenna gains (empty: every member
    /// sends at `tx_power_dbm` with the propagation table's gains only).
    pub nodes: Vec<NodeRadio>,
    /// The transmission vector of every data frame (802.11n, 802.11ac,
    /// 802.11ax: the MCS, width and guard interval of `phy`), `None` for
    /// legacy PHYs.
    pub ht: Option<crate::phy::ppdu::TxVector>,
}

impl ChannelErrors {
    /// Transmit power of `ta` plus the antenna gains of both ends of the
    /// link beyond the propagation table's (dBm): what the channel's link
    /// budget takes as the frame's power.
    pub fn link_power_dbm(&self, ta: MacAddr, ra: MacAddr) -> f64 {
        match (self.nodes.get(ta.0 as usize), self.nodes.get(ra.0 as usize)) {
            (Some(t), Some(r)) => {
                let (pt, pr) = (self.positions.get(ta.0 as usize), self.positions.get(ra.0 as usize));
                let gain =
                    |a: &NodeRadio, b: &NodeRadio, pa: Option<&Position>, pb: Option<&Position>| match (a.beam, pa, pb)
                    {
                        (Some(beam), Some(&pa), Some(&pb)) => beam.gain_toward(pa, pb),
                        _ if b.is_ap => a.gain_to_ap_dbi,
                        _ => a.gain_to_sta_dbi,
                    };
                t.tx_power_dbm + gain(t, r, pt, pr) + gain(r, t, pr, pt)
            }
            _ => self.tx_power_dbm,
        }
    }

    /// The channel's view of `f`, which ends at `now`: it starts `airtime`
    /// earlier (where the channel reads the link's fading).
    fn frame_tx(&self, now: SimTime, ta: MacAddr, ra: MacAddr, f: &Frame) -> crate::channel::FrameTx {
        use crate::channel::{FrameKind as K, FrameTx, Mode};
        let mode = Mode::from_kbps(f.rate.0 * 100).unwrap_or(Mode::Ofdm6);
        FrameTx {
            tx: wifitcp_core::NodeId(ta.0),
            rx: wifitcp_core::NodeId(ra.0),
            tx_pos: self.positions[ta.0 as usize],
            rx_pos: self.positions[ra.0 as usize],
            tx_power_dbm: self.link_power_dbm(ta, ra),
            mode,
            preamble: self.preamble,
            bits: mode.data_bits(f.mpdu_bytes),
            kind: if f.kind.carries_msdus() { K::Data } else { K::Control },
            start: SimTime(now.0.saturating_sub(f.airtime.as_nanos())),
        }
    }

    /// (header, data) success of `f` at received power `pr` under
    /// `interferers` (dBm): HT data frames by their MCS, everything else
    /// whole at its legacy rate (header part 1).
    fn parts_at(
        &self,
        f: &Frame,
        tx: &crate::channel::FrameTx,
        ru: Option<RuLink>,
        pr: f64,
        interferers: &[f64],
    ) -> (f64, f64) {
        match self.ht {
            Some(v) if f.kind.carries_msdus() || ru.is_some() => {
                self.channel.model().ht_success_parts(tx, v, ru, f.mpdu_bytes, pr, interferers)
            }
            _ => (1.0, self.channel.model().success_prob_from_rx_power(tx, pr, interferers)),
        }
    }

    /// The SNR model's rule for a frame under interference: `part` of
    /// `parts_at` (signal fields, PSDU) at the SINR of each span of
    /// constant interference, the product over the spans of its success
    /// raised to the span's share of the frame (see
    /// `success_prob_with_interference`).
    fn over_spans(
        &self,
        f: &Frame,
        tx: &crate::channel::FrameTx,
        ru: Option<RuLink>,
        pr: f64,
        chunks: &[(u64, f64)],
        part: impl Fn((f64, f64)) -> f64,
    ) -> f64 {
        let total = chunks.iter().map(|c| c.0).sum::<u64>().max(1) as f64;
        let mut p = 1.0;
        for &(d, i) in chunks {
            let parts = if i > 0.0 {
                self.parts_at(f, tx, ru, pr, &[10.0 * i.log10()])
            } else {
                self.parts_at(f, tx, ru, pr, &[])
            };
            p *= part(parts).powf(d as f64 / total);
        }
        p
    }

    /// The carrier-sense threshold of the channel model (dBm), if it has one.
    pub fn cs_threshold_dbm(&self) -> Option<f64> {
        match self.channel.model() {
            crate::channel::ChannelModel::Threshold(t) => t.cs_threshold_dbm,
            crate::channel::ChannelModel::Snr(s) => s.cs_threshold_dbm,
            crate::channel::ChannelModel::Fixed(_) => None,
        }
    }
}

impl FrameErrorModel for ChannelErrors {
    fn success_prob(&mut self, now: SimTime, ta: MacAddr, ra: MacAddr, f: &Frame, rng: &mut RngStream) -> f64 {
        if self.ht.is_none() {
            let tx = self.frame_tx(now, ta, ra, f);
            return self.channel.frame_success_prob(&tx, rng);
        }
        let (h, d) = self.ppdu_success_parts(now, ta, ra, f, rng);
        h * d
    }

    /// HT data frames: the signal fields and the data field apart (see
    /// [`crate::channel::error_model::ht`]); one shadowing draw per frame,
    /// as for any frame.
    fn ppdu_success_parts(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        f: &Frame,
        rng: &mut RngStream,
    ) -> (f64, f64) {
        let tx = self.frame_tx(now, ta, ra, f);
        if self.ht.is_none() {
            return (1.0, self.channel.frame_success_prob(&tx, rng));
        }
        let pr = self.channel.rx_power_dbm(&tx, rng).unwrap_or(f64::NAN);
        self.parts_at(f, &tx, None, pr, &[])
    }

    /// HE data PPDUs: the user's PSDU with its RU's parameters, whatever
    /// its kind (a share's QoS Null is sent on its RU as data is); one
    /// shadowing draw, as for any frame. Legacy PHYs have no RUs.
    fn ru_success_parts(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        f: &Frame,
        ru: RuLink,
        rng: &mut RngStream,
    ) -> (f64, f64) {
        let Some(v) = self.ht else { return self.ppdu_success_parts(now, ta, ra, f, rng) };
        let tx = self.frame_tx(now, ta, ra, f);
        let pr = self.channel.rx_power_dbm(&tx, rng).unwrap_or(f64::NAN);
        self.channel.model().ht_success_parts(&tx, v, Some(ru), f.mpdu_bytes, pr, &[])
    }

    /// SNR model: the error model at the SINR of each span of constant
    /// interference, the frame's success the product over the spans of
    /// the success of their share of its bits (ns-3's InterferenceHelper
    /// judges a PPDU chunk by chunk the same way; exact for the union-bound
    /// model, whose bit errors are independent); threshold model: received
    /// power at least RXThresh_ and at least [`CAPTURE_THRESHOLD_DB`] above
    /// the strongest interference (ns-2 capture); fixed model: the default
    /// (no capture). One shadowing draw per frame, as without interference;
    /// `[channel.fading]` scales the wanted frame's power only, the
    /// interference in `chunks` stays at its mean (a simplification: the
    /// interferers' own links fade independently).
    fn success_prob_with_interference(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        f: &Frame,
        ru: Option<RuLink>,
        chunks: &[(u64, f64)],
        rng: &mut RngStream,
    ) -> f64 {
        use crate::channel::ChannelModel as CM;
        let worst = chunks.iter().fold(0.0f64, |m, c| m.max(c.1));
        if worst <= 0.0 {
            return success_alone(self, now, ta, ra, f, ru, rng);
        }
        let tx = self.frame_tx(now, ta, ra, f);
        match self.channel.model() {
            CM::Fixed(_) => 0.0,
            CM::Snr(_) => {
                let pr = self.channel.rx_power_dbm(&tx, rng).unwrap_or(f64::NEG_INFINITY);
                self.over_spans(f, &tx, ru, pr, chunks, |(h, q)| h * q)
            }
            CM::Threshold(_) => {
                let pr = self.channel.rx_power_dbm(&tx, rng).unwrap_or(f64::NEG_INFINITY);
                let p = match (self.ht, ru) {
                    (Some(v), Some(ru)) => {
                        let (h, d) = self.channel.model().ht_success_parts(&tx, v, Some(ru), f.mpdu_bytes, pr, &[]);
                        h * d
                    }
                    _ => self.channel.model().success_prob_from_rx_power(&tx, pr, &[]),
                };
                if pr - 10.0 * worst.log10() >= CAPTURE_THRESHOLD_DB {
                    p
                } else {
                    0.0
                }
            }
        }
    }

    /// SNR model: the signal fields' success at each span's SINR, the
    /// product over the spans of their shares; threshold model: the
    /// capture rule against the strongest interference (its frames have
    /// no separate header); without an HT vector, 1 (legacy frames are
    /// judged whole).
    fn header_prob_with_interference(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        f: &Frame,
        ru: Option<RuLink>,
        chunks: &[(u64, f64)],
        rng: &mut RngStream,
    ) -> f64 {
        use crate::channel::ChannelModel as CM;
        let worst = chunks.iter().fold(0.0f64, |m, c| m.max(c.1));
        if self.ht.is_none() || worst <= 0.0 {
            return 1.0;
        }
        let tx = self.frame_tx(now, ta, ra, f);
        let pr = self.channel.rx_power_dbm(&tx, rng).unwrap_or(f64::NEG_INFINITY);
        match self.channel.model() {
            CM::Fixed(_) => 0.0,
            CM::Snr(_) => self.over_spans(f, &tx, ru, pr, chunks, |(h, _)| h),
            CM::Threshold(_) => {
                if pr - 10.0 * worst.log10() >= CAPTURE_THRESHOLD_DB {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }

    fn mean_rx_dbm(&self, ta: MacAddr, ra: MacAddr) -> Option<f64> {
        let radio = self.channel.model().radio()?;
        let d = self.positions[ta.0 as usize].distance(&self.positions[ra.0 as usize]);
        Some(radio.budget.mean_rx_power_dbm(self.link_power_dbm(ta, ra), d))
    }
    fn position_of(&mut self, _now: SimTime, i: usize) -> Option<Position> {
        self.positions.get(i).copied()
    }
}

/// A fixed frame error rate per station and direction, for data frames
/// only (the `wlan.per_uplink` / `wlan.per_downlink` keys, docs/scenarios.md):
/// control frames always get through.
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
    fn success_prob(&mut self, _now: SimTime, ta: MacAddr, ra: MacAddr, f: &Frame, _rng: &mut RngStream) -> f64 {
        if !f.kind.carries_msdus() {
            return 1.0;
        }
        let per = if self.ap(ra) && !self.ap(ta) {
            self.uplink.get(ta.0 as usize).copied().unwrap_or(0.0)
        } else if self.ap(ta) && !self.ap(ra) {
            self.downlink.get(ra.0 as usize).copied().unwrap_or(0.0)
        } else {
            0.0
        };
        1.0 - per
    }
    fn may_hit_control_frames(&self) -> bool {
        false
    }
    fn may_hit_data_frames(&self) -> bool {
        self.uplink.iter().chain(&self.downlink).any(|&p| p != 0.0)
    }
}

/// Test fixture: an AP at the origin and one station `d` metres away under
/// channel configuration `c` (stations are named `sta0`, `sta1`, ...).
#[cfg(test)]
pub(crate) fn two_nodes(c: crate::channel::config::ChannelConfig, d: f64) -> ChannelErrors {
    use crate::channel::{Channel, Position, Preamble};
    let model =
        c.build(&|name| name.strip_prefix("sta").map(|i| wifitcp_core::NodeId(1 + i.parse::<u32>().unwrap()))).unwrap();
    ChannelErrors {
        tx_power_dbm: c.default_tx_power_dbm().unwrap_or(20.0),
        channel: Channel::new(model, &mut RngStream::derive(1, "shadowing")),
        positions: vec![Position::new(0.0, 0.0, 0.0), Position::new(d, 0.0, 0.0)],
        preamble: Preamble::Long,
        nodes: Vec::new(),
        ht: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::config::{ChannelConfig, FixedConfig, SnrClassConfig, SnrConfig};
    use crate::channel::{presets, FrameScope};
    use crate::mac::FrameKind;
    use crate::phy::Rate;
    use wifitcp_core::SimDur;

    fn frame(kind: FrameKind, bytes: u32, rate_mbps: u32) -> Frame {
        let (ta, ra) = if kind == FrameKind::Data { (0, 1) } else { (1, 0) };
        Frame {
            mu: None,
            kind,
            ta: MacAddr(ta),
            ra: MacAddr(ra),
            duration: SimDur::ZERO,
            seq: 0,
            retry: false,
            mpdu_bytes: bytes,
            rate: Rate(rate_mbps * 10),
            airtime: SimDur::from_micros(100),
            contended: kind != FrameKind::Ack,
            mpdus: crate::mac::Mpdus::none(),
        }
    }

    /// Fraction of `n` attempts of `f` that fail, drawn as the medium does.
    fn failure_rate(e: &mut ChannelErrors, f: &Frame, n: u32, rng: &mut RngStream) -> f64 {
        let fails = (0..n)
            .filter(|_| {
                let p = e.success_prob(SimTime::ZERO, f.ta, f.ra, f, rng);
                !rng.bernoulli(p)
            })
            .count();
        fails as f64 / n as f64
    }

    #[test]
    fn threshold_model_fails_acks_as_often_as_data_frames() {
        // ns-2 reception (Janevski & Petrov, 100 m): received power with a
        // per-frame 4 dB shadowing draw against RXThresh, whatever the frame:
        // P(fail) = 1 - Phi(3.208 / 4) = 0.2113 for a 14-byte ACK as for a
        // 552-byte data frame. 40 000 draws: sd 0.002, tolerance 0.01.
        let mut e = two_nodes(presets::janevski_petrov(), 100.0);
        let mut rng = RngStream::derive(3, "medium");
        let data = failure_rate(&mut e, &frame(FrameKind::Data, 552, 20), 40_000, &mut rng);
        let ack = failure_rate(&mut e, &frame(FrameKind::Ack, 14, 12), 40_000, &mut rng);
        assert!((data - 0.2113).abs() < 0.01, "{data}");
        assert!((ack - 0.2113).abs() < 0.01, "{ack}");
        // 5 m: 38 dB above the threshold, no frame ever fails (and p is
        // exactly 1, so the medium draws nothing more).
        let mut e = two_nodes(presets::janevski_petrov(), 5.0);
        assert_eq!(
            e.success_prob(SimTime::ZERO, MacAddr(1), MacAddr(0), &frame(FrameKind::Ack, 14, 12), &mut rng),
            1.0
        );
    }

    #[test]
    fn snr_model_judges_control_frames_by_their_length_and_rate() {
        // Default SNR model (ns-3's log-distance, no shadowing): at 56 m a
        // 1500-byte frame at 24 Mbit/s often fails; a 14-byte ACK at the
        // 12 Mbit/s control-response rate almost never does.
        let mut e = two_nodes(ChannelConfig::Snr(SnrConfig::default()), 56.0);
        let mut rng = RngStream::derive(3, "medium");
        let data =
            1.0 - e.success_prob(SimTime::ZERO, MacAddr(0), MacAddr(1), &frame(FrameKind::Data, 1500, 24), &mut rng);
        let ack = 1.0 - e.success_prob(SimTime::ZERO, MacAddr(1), MacAddr(0), &frame(FrameKind::Ack, 14, 12), &mut rng);
        assert!(data > 0.1, "data FER {data}");
        assert!(ack > 0.0 && ack < data / 100.0, "ACK FER {ack} vs data {data}");
    }

    #[test]
    fn ht_data_frames_are_judged_by_their_mcs_and_control_frames_by_their_rate() {
        use crate::channel::error_model::ht::ppdu_success_parts;
        use crate::phy::ht::{Band, GuardInterval, HtMcs, HtTxVector, HtWidth};
        // Default SNR channel at 23 m: 16.02 dBm - 46.68 dB at 1 m - 30
        // log10(23) - noise (-93.97 dBm over 20 MHz) = 22.45 dB.
        use crate::channel::propagation::{friis_loss_db, thermal_noise_dbm};
        let snr = 16.0206 - friis_loss_db(1.0, 5.15e9) - 30.0 * 23f64.log10() - thermal_noise_dbm(20e6, 7.0);
        assert!((snr - 22.45).abs() < 0.01, "{snr}");
        let v = |w| HtTxVector { mcs: HtMcs::new(7).unwrap(), width: w, gi: GuardInterval::Long, band: Band::Ghz5 };
        let mut e = two_nodes(ChannelConfig::Snr(SnrConfig::default()), 23.0);
        e.ht = Some(v(HtWidth::Mhz20).into());
        let mut rng = RngStream::derive(3, "medium");
        let data = frame(FrameKind::QosData, 8000, 650);
        let (h, d) = e.ppdu_success_parts(SimTime::ZERO, data.ta, data.ra, &data, &mut rng);
        let (h0, d0) = ppdu_success_parts(HtMcs::new(7).unwrap(), HtWidth::Mhz20, snr, 8000);
        assert!((h - h0).abs() < 1e-6 && (d - d0).abs() < 1e-6 && d > 0.01 && d < 0.5, "{h} {d} / {h0} {d0}");
        assert!((e.success_prob(SimTime::ZERO, data.ta, data.ra, &data, &mut rng) - h0 * d0).abs() < 1e-6);
        // 40 MHz: the same power over twice the noise, 3 dB less SNR.
        e.ht = Some(v(HtWidth::Mhz40).into());
        let (_, d40) = e.ppdu_success_parts(SimTime::ZERO, data.ta, data.ra, &data, &mut rng);
        let (_, w40) = ppdu_success_parts(HtMcs::new(7).unwrap(), HtWidth::Mhz40, snr - 10.0 * 2f64.log10(), 8000);
        assert!((d40 - w40).abs() < 1e-6 && d40 < d, "{d40} {w40}");
        // A BlockAck at 24 Mbit/s is a legacy frame, whole (header part 1).
        let ba = frame(FrameKind::BlockAck, 32, 24);
        let (hb, pb) = e.ppdu_success_parts(SimTime::ZERO, ba.ta, ba.ra, &ba, &mut rng);
        e.ht = None;
        let legacy = e.success_prob(SimTime::ZERO, ba.ta, ba.ra, &ba, &mut rng);
        assert!(hb == 1.0 && pb == legacy && pb > 0.999, "{hb} {pb} {legacy}");
    }

    #[test]
    fn snr_classes_hit_control_frames_by_their_scope() {
        let cfg = |frames| {
            ChannelConfig::Fixed(FixedConfig {
                per: 0.0,
                frames,
                classes: vec![SnrClassConfig {
                    name: "bad".into(),
                    per_down: 0.0,
                    per_up: 0.25,
                    stations: vec!["sta0".into()],
                }],
            })
        };
        let ack = frame(FrameKind::Ack, 14, 12); // from member 1 (sta0) to the AP
        let mut rng = RngStream::derive(3, "medium");
        let before = rng.clone().next_u64();
        let mut e = two_nodes(cfg(FrameScope::Data), 10.0);
        assert_eq!(e.success_prob(SimTime::ZERO, ack.ta, ack.ra, &ack, &mut rng), 1.0);
        assert_eq!(rng.clone().next_u64(), before, "a spared frame draws nothing");
        let mut e = two_nodes(cfg(FrameScope::All), 10.0);
        assert!((e.success_prob(SimTime::ZERO, ack.ta, ack.ra, &ack, &mut rng) - 0.75).abs() < 1e-12);
        for k in [FrameKind::Rts, FrameKind::Cts] {
            let f = Frame { kind: k, ..ack.clone() };
            assert!((e.success_prob(SimTime::ZERO, f.ta, f.ra, &f, &mut rng) - 0.75).abs() < 1e-12);
        }
    }
}
