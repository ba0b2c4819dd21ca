//! The `[tcp]` section of a scenario (also `[traffic.tcp]`): its serde
//! shape, its key table, and the step from it to a [`TcpConfig`] and a
//! congestion controller. Unset fields fall back to the scenario's `[tcp]`
//! (see [`TcpSection::over`]), then to the crate's RFC defaults.
//!
//! Adding a congestion controller: its file under `cc/`, one `CcKind`
//! variant, one arm in [`controller`], and its keys in [`KEYS`] if it has
//! parameters.
use crate::cc::compound::{Compound, CompoundConfig};
use crate::cc::cubic::{Cubic, CubicConfig};
use crate::cc::vegas::{Vegas, VegasConfig, VegasLoss};
use crate::{CongestionControl, DelayedAck, InitialWindow, RecoveryVariant, RecvBuffer, Reno, TcpConfig};
use serde::{Deserialize, Serialize};
use wifitcp_core::schema::Ty::*;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::schema::{k, r, Key, PKTS, TIMER_MS};
use wifitcp_core::SimDur;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryKind {
    Tahoe,
    Reno,
    NewReno,
    Sack,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CcKind {
    Reno,
    Vegas,
    Cubic,
    Compound,
}

/// `[tcp]` and `[traffic.tcp]`: TCP settings. Unset fields fall back to the
/// scenario's `[tcp]`, then to the TCP crate's RFC defaults (see
/// `wifitcp_tcp::TcpConfig`: MSS 1460, RFC 5681 initial window, 64 KiB
/// receive buffer, SACK and window scaling on, timestamps off, delayed ACK
/// every 2nd segment / 200 ms, min RTO 1 s, NewReno).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TcpSection {
    pub recovery: Option<RecoveryKind>,
    pub cc: Option<CcKind>,
    pub mss: Option<u32>,
    /// Receiver window in packets (of `mss`), as ns-2's `window_`.
    pub rwnd_packets: Option<u32>,
    pub rwnd_bytes: Option<u64>,
    /// Initial window in segments; default RFC 5681.
    pub initial_window: Option<u32>,
    pub delayed_ack: Option<bool>,
    pub delayed_ack_count: Option<u32>,
    pub delayed_ack_ms: Option<f64>,
    pub sack: Option<bool>,
    pub timestamps: Option<bool>,
    pub window_scaling: Option<bool>,
    pub limited_transmit: Option<bool>,
    /// RACK-TLP loss detection (RFC 8985); needs `recovery = "sack"`.
    pub rack_tlp: Option<bool>,
    pub min_rto_ms: Option<f64>,
    pub initial_rto_ms: Option<f64>,
    pub max_rto_ms: Option<f64>,
    /// Record cwnd/ssthresh over time.
    pub trace_cwnd: Option<bool>,
    /// SYN/SYN-ACK retransmissions before giving up (default 6, Linux);
    /// ns-2 never gives up: use a large value to model it.
    pub syn_retries: Option<u32>,
    /// Consecutive RTOs before the connection aborts (default 15, Linux).
    pub max_retransmissions: Option<u32>,
    /// `[tcp.compound]`: Compound TCP's parameters (used when cc =
    /// "compound"); unset keys keep `CompoundConfig::default()`.
    pub compound: Option<CompoundSection>,
    /// `[tcp.vegas]`: Vegas's thresholds (used when cc = "vegas").
    pub vegas: Option<VegasSection>,
}

/// `[tcp.compound]` (Tan et al., INFOCOM 2006; paper 004 eq. (1)). Names as
/// in `wifitcp_tcp::cc::compound::CompoundConfig`; checked by
/// [`compound_config`].
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CompoundSection {
    /// dwnd growth `alpha * win^k` per round; default 0.125; > 0.
    pub alpha: Option<f64>,
    /// Window decrease on loss; default 0.5; in (0, 1).
    pub beta: Option<f64>,
    /// Exponent kappa of the delay window's growth; default 0.75; in [0, 1]
    /// (paper 004's appendix discusses kappa = 0 and 1).
    pub k: Option<f64>,
    /// Backlog threshold gamma (packets); default 30; > 0.
    pub gamma: Option<f64>,
    /// dwnd reduction per backlogged packet above gamma; default 1; > 0.
    pub zeta: Option<f64>,
}

/// `[tcp.vegas]` (Brakmo & Peterson 1995). Names as in
/// `wifitcp_tcp::cc::vegas::VegasConfig`, in packets of backlog.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VegasSection {
    /// Grow while Diff < alpha; default 2; >= 0.
    pub alpha: Option<f64>,
    /// Shrink while Diff > beta; default 4; >= alpha.
    pub beta: Option<f64>,
    /// Leave slow start when Diff > gamma; default 1; >= 0.
    pub gamma: Option<f64>,
    /// "reno" (default, as ns-3 and Linux) or "brakmo" (B&P 3.1, as ns-2).
    pub loss_response: Option<String>,
}

impl CompoundSection {
    fn over(&self, base: &CompoundSection) -> CompoundSection {
        CompoundSection {
            alpha: self.alpha.or(base.alpha),
            beta: self.beta.or(base.beta),
            k: self.k.or(base.k),
            gamma: self.gamma.or(base.gamma),
            zeta: self.zeta.or(base.zeta),
        }
    }
}

impl VegasSection {
    fn over(&self, base: &VegasSection) -> VegasSection {
        VegasSection {
            alpha: self.alpha.or(base.alpha),
            beta: self.beta.or(base.beta),
            gamma: self.gamma.or(base.gamma),
            loss_response: self.loss_response.clone().or(base.loss_response.clone()),
        }
    }
}

impl TcpSection {
    /// `self` with unset fields taken from `base` (key by key, also inside
    /// `[tcp.compound]` and `[tcp.vegas]`).
    pub fn over(&self, base: &TcpSection) -> TcpSection {
        macro_rules! pick {
            ($($f:ident),*) => { TcpSection { $($f: self.$f.clone().or(base.$f.clone()),)*
                compound: match (&self.compound, &base.compound) {
                    (Some(a), Some(b)) => Some(a.over(b)),
                    (a, b) => a.clone().or(b.clone()),
                },
                vegas: match (&self.vegas, &base.vegas) {
                    (Some(a), Some(b)) => Some(a.over(b)),
                    (a, b) => a.clone().or(b.clone()),
                },
            } };
        }
        pick!(
            recovery,
            cc,
            mss,
            rwnd_packets,
            rwnd_bytes,
            initial_window,
            delayed_ack,
            delayed_ack_count,
            delayed_ack_ms,
            sack,
            timestamps,
            window_scaling,
            limited_transmit,
            rack_tlp,
            min_rto_ms,
            initial_rto_ms,
            max_rto_ms,
            trace_cwnd,
            syn_retries,
            max_retransmissions
        )
    }
}

/// The keys of `[tcp]`, relative to the section.
pub static KEYS: &[Key] = &[
    k("recovery", Str, "\"newreno\"", None, "", "\"tahoe\", \"reno\", \"newreno\" or \"sack\"."),
    k("cc", Str, "\"reno\"", None, "", "\"reno\", \"vegas\", \"cubic\" or \"compound\"."),
    k("mss", Int, "1460", r(In(64.0), In(65495.0)), "bytes", "Maximum segment size."),
    k("rwnd_packets", Int, "none", PKTS, "packets", "Receive window in segments (ns-2 window_)."),
    k("rwnd_bytes", Int, "65535", r(In(1.0), In(1073741824.0)), "bytes", "Receive window (RFC 7323: < 2^30)."),
    k("initial_window", Int, "RFC 5681", r(In(1.0), In(1e4)), "segments", "Initial window."),
    k("delayed_ack", Bool, "true", None, "", "Delayed ACKs (RFC 1122)."),
    k("delayed_ack_count", Int, "2", r(In(1.0), In(1000.0)), "segments", "ACK every n-th segment."),
    k("delayed_ack_ms", Float, "200.0", r(Ex(0.0), In(500.0)), "ms", "Delayed-ACK timer (RFC 1122: <= 500 ms)."),
    k("sack", Bool, "true", None, "", "SACK (RFC 2018)."),
    k("timestamps", Bool, "false", None, "", "Timestamps (RFC 7323)."),
    k("window_scaling", Bool, "true", None, "", "Window scaling (RFC 7323)."),
    k("limited_transmit", Bool, "true", None, "", "Limited transmit (RFC 3042)."),
    k(
        "rack_tlp",
        Bool,
        "false",
        None,
        "",
        "RACK-TLP loss detection (RFC 8985; Linux's default); needs recovery = \"sack\".",
    ),
    k("min_rto_ms", Float, "1000.0", TIMER_MS, "ms", "Minimum RTO (RFC 6298)."),
    k("initial_rto_ms", Float, "1000.0", TIMER_MS, "ms", "Initial RTO."),
    k("max_rto_ms", Float, "60000.0", TIMER_MS, "ms", "Maximum RTO."),
    k("trace_cwnd", Bool, "false", None, "", "Record cwnd/ssthresh over time."),
    k("syn_retries", Int, "6", r(In(0.0), In(1e9)), "retries", "SYN retransmissions before giving up."),
    k("max_retransmissions", Int, "15", r(In(1.0), In(1e9)), "RTOs", "Consecutive RTOs before aborting."),
    k("compound", Table, "each key's default", None, "", "Compound TCP's parameters (cc = \"compound\")."),
    k("compound.alpha", Float, "0.125", r(Ex(0.0), In(100.0)), "", "dwnd growth alpha * win^k per round."),
    k("compound.beta", Float, "0.5", r(Ex(0.0), Ex(1.0)), "", "Window decrease on loss."),
    k("compound.k", Float, "0.75", r(In(0.0), In(1.0)), "", "Exponent of the delay window's growth."),
    k("compound.gamma", Float, "30.0", r(Ex(0.0), In(1e6)), "packets", "Backlog threshold."),
    k("compound.zeta", Float, "1.0", r(Ex(0.0), In(100.0)), "", "dwnd reduction per packet above gamma."),
    k("vegas", Table, "each key's default", None, "", "Vegas's thresholds (cc = \"vegas\")."),
    k("vegas.alpha", Float, "2.0", r(In(0.0), In(1e6)), "packets", "Grow while Diff < alpha."),
    k("vegas.beta", Float, "4.0", r(In(0.0), In(1e6)), "packets", "Shrink while Diff > beta; >= alpha."),
    k("vegas.gamma", Float, "1.0", r(In(0.0), In(1e6)), "packets", "Leave slow start when Diff > gamma."),
    k(
        "vegas.loss_response",
        Str,
        "\"reno\"",
        None,
        "",
        "\"reno\" (as ns-3 and Linux) or \"brakmo\" (Brakmo & Peterson 3.1, as ns-2).",
    ),
];

fn ms(field: &str, x: f64) -> Result<SimDur, String> {
    if !(x.is_finite() && x > 0.0 && x <= 1e7) {
        return Err(format!("{field}: must be a positive number of milliseconds, got {x}"));
    }
    Ok(SimDur::from_secs_f64(x / 1e3))
}

/// Build the endpoint configuration; errors are "field: reason".
pub fn build(t: &TcpSection) -> Result<TcpConfig, String> {
    let mut c = TcpConfig::default();
    if let Some(m) = t.mss {
        c.mss = m;
    }
    if let Some(r) = t.recovery {
        c.recovery = match r {
            RecoveryKind::Tahoe => RecoveryVariant::Tahoe,
            RecoveryKind::Reno => RecoveryVariant::Reno,
            RecoveryKind::NewReno => RecoveryVariant::NewReno,
            RecoveryKind::Sack => RecoveryVariant::Sack,
        };
    }
    match (t.rwnd_packets, t.rwnd_bytes) {
        (Some(_), Some(_)) => return Err("rwnd_bytes: set rwnd_packets or rwnd_bytes, not both".into()),
        (Some(p), None) => {
            if p == 0 {
                return Err("rwnd_packets: must be at least 1".into());
            }
            c.recv_buffer = RecvBuffer::Segments(p)
        }
        (None, Some(b)) => c.recv_buffer = RecvBuffer::Bytes(b),
        (None, None) => {}
    }
    if let Some(w) = t.initial_window {
        if w == 0 {
            return Err("initial_window: must be at least 1 segment".into());
        }
        c.initial_window = InitialWindow::Segments(w);
    }
    if t.delayed_ack == Some(false) {
        c.delayed_ack = None;
    } else {
        let mut d = DelayedAck::default();
        if let Some(k) = t.delayed_ack_count {
            d.count = k;
        }
        if let Some(x) = t.delayed_ack_ms {
            d.timeout = ms("delayed_ack_ms", x)?;
        }
        c.delayed_ack = Some(d);
    }
    if let Some(b) = t.sack {
        c.sack = b;
    }
    if let Some(b) = t.timestamps {
        c.timestamps = b;
    }
    if let Some(b) = t.window_scaling {
        c.window_scaling = b;
    }
    if let Some(b) = t.limited_transmit {
        c.limited_transmit = b;
    }
    if let Some(x) = t.min_rto_ms {
        c.min_rto = ms("min_rto_ms", x)?;
    }
    if let Some(x) = t.initial_rto_ms {
        c.initial_rto = ms("initial_rto_ms", x)?;
    }
    if let Some(x) = t.max_rto_ms {
        c.max_rto = ms("max_rto_ms", x)?;
    }
    if let Some(b) = t.trace_cwnd {
        c.trace = b;
    }
    if let Some(k) = t.syn_retries {
        c.syn_retries = k;
    }
    if let Some(k) = t.max_retransmissions {
        c.max_retransmissions = k;
    }
    compound_config(t.compound.as_ref())?;
    vegas_config(t.vegas.as_ref())?;
    if let Some(b) = t.rack_tlp {
        c.rack_tlp = b;
    }
    if c.rack_tlp && c.recovery != RecoveryVariant::Sack {
        return Err("rack_tlp: RACK-TLP needs recovery = \"sack\" (RFC 8985 section 4: SACK-based)".into());
    }
    // Needed for SACK-based recovery to be meaningful.
    if c.recovery == RecoveryVariant::Sack && !c.sack {
        return Err("recovery: \"sack\" needs sack = true".into());
    }
    c.validate()?;
    Ok(c)
}

fn finite(field: &str, x: f64, ok: bool, reason: &str) -> Result<f64, String> {
    if x.is_finite() && ok {
        Ok(x)
    } else {
        Err(format!("{field}: {reason}, got {x}"))
    }
}

/// `[tcp.compound]` over `CompoundConfig::default()`; errors are
/// "compound.field: reason".
pub fn compound_config(s: Option<&CompoundSection>) -> Result<CompoundConfig, String> {
    let mut c = CompoundConfig::default();
    let Some(s) = s else { return Ok(c) };
    if let Some(x) = s.alpha {
        c.alpha = finite("compound.alpha", x, x > 0.0, "must be positive")?;
    }
    if let Some(x) = s.beta {
        c.beta = finite("compound.beta", x, x > 0.0 && x < 1.0, "must be in (0, 1)")?;
    }
    if let Some(x) = s.k {
        c.k = finite("compound.k", x, (0.0..=1.0).contains(&x), "must be in [0, 1]")?;
    }
    if let Some(x) = s.gamma {
        c.gamma = finite("compound.gamma", x, x > 0.0, "must be a positive number of packets")?;
    }
    if let Some(x) = s.zeta {
        c.zeta = finite("compound.zeta", x, x > 0.0, "must be positive (paper 004: zeta > 0)")?;
    }
    Ok(c)
}

/// `[tcp.vegas]` over `VegasConfig::default()`; errors are
/// "vegas.field: reason".
pub fn vegas_config(s: Option<&VegasSection>) -> Result<VegasConfig, String> {
    let mut c = VegasConfig::default();
    let Some(s) = s else { return Ok(c) };
    if let Some(x) = s.alpha {
        c.alpha = finite("vegas.alpha", x, x >= 0.0, "must be non-negative")?;
    }
    if let Some(x) = s.beta {
        c.beta = finite("vegas.beta", x, x >= 0.0, "must be non-negative")?;
    }
    if let Some(x) = s.gamma {
        c.gamma = finite("vegas.gamma", x, x >= 0.0, "must be non-negative")?;
    }
    if c.beta < c.alpha {
        return Err(format!("vegas.beta: must be at least alpha ({}), got {}", c.alpha, c.beta));
    }
    c.loss_response = match s.loss_response.as_deref() {
        None | Some("reno") => VegasLoss::Reno,
        Some("brakmo") => VegasLoss::Brakmo,
        Some(x) => return Err(format!("vegas.loss_response: must be \"reno\" or \"brakmo\", got {x:?}")),
    };
    Ok(c)
}

/// A fresh controller for one endpoint. `t` must have passed [`build`],
/// which checks `[tcp.compound]` and `[tcp.vegas]`.
pub fn controller(t: &TcpSection) -> Box<dyn CongestionControl> {
    match t.cc.unwrap_or(CcKind::Reno) {
        CcKind::Reno => Box::new(Reno::new()),
        CcKind::Vegas => Box::new(Vegas::new(vegas_config(t.vegas.as_ref()).expect("checked by build"))),
        CcKind::Cubic => Box::new(Cubic::new(CubicConfig::default())),
        CcKind::Compound => Box::new(Compound::new(compound_config(t.compound.as_ref()).expect("checked by build"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traffic_overrides_merge_key_by_key() {
        let base = TcpSection {
            compound: Some(CompoundSection { gamma: Some(10.0), zeta: Some(0.5), ..Default::default() }),
            ..Default::default()
        };
        let own = TcpSection {
            compound: Some(CompoundSection { gamma: Some(20.0), ..Default::default() }),
            ..Default::default()
        };
        let c = compound_config(own.over(&base).compound.as_ref()).unwrap();
        assert_eq!((c.alpha, c.gamma, c.zeta), (0.125, 20.0, 0.5));
        let v =
            vegas_config(Some(&VegasSection { alpha: Some(1.0), beta: Some(3.0), gamma: None, loss_response: None }))
                .unwrap();
        assert_eq!((v.alpha, v.beta, v.gamma), (1.0, 3.0, 1.0));
        assert_eq!(compound_config(None).unwrap(), CompoundConfig::default());
    }
}
