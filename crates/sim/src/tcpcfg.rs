//! From the scenario's `[tcp]` section to the TCP crate's configuration and
//! congestion controller.
use crate::config::{CcKind, CompoundSection, RecoveryKind, TcpSection, VegasSection};
use wifitcp_core::SimDur;
use wifitcp_tcp::cc::compound::{Compound, CompoundConfig};
use wifitcp_tcp::cc::cubic::{Cubic, CubicConfig};
use wifitcp_tcp::cc::vegas::{Vegas, VegasConfig, VegasLoss};
use wifitcp_tcp::{CongestionControl, DelayedAck, InitialWindow, RecoveryVariant, RecvBuffer, Reno, TcpConfig};

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
        CcKind::Vegas => Box::new(Vegas::new(vegas_config(t.vegas.as_ref()).expect("checked by tcpcfg::build"))),
        CcKind::Cubic => Box::new(Cubic::new(CubicConfig::default())),
        CcKind::Compound => {
            Box::new(Compound::new(compound_config(t.compound.as_ref()).expect("checked by tcpcfg::build")))
        }
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
