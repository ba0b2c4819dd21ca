//! Per-connection TCP configuration with documented defaults.
//!
//! Every default below is either the RFC default (cited) or a stated
//! deviation with its reason. Scenarios override fields; the simulator's
//! typed schema maps onto this struct. The congestion controller is not part
//! of the configuration: each endpoint needs its own instance, so it is
//! passed to [`crate::Connection::connect`] / [`crate::Connection::listen`]
//! separately, while `TcpConfig` stays `Clone`.
use wifitcp_core::ConfigError;
use wifitcp_core::SimDur;

/// Loss-recovery algorithm (the reaction to duplicate ACKs; timeouts are
/// handled the same way by all variants, RFC 6298 section 5 and RFC 5681
/// section 3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecoveryVariant {
    /// 4.3BSD-Tahoe behaviour as modelled by Fall & Floyd (1996): after
    /// DupThresh duplicate ACKs, retransmit, set cwnd to one segment and
    /// slow-start again, going back to `snd_una` (go-back-N); no fast
    /// recovery.
    Tahoe,
    /// RFC 5681 section 3.2 fast retransmit / fast recovery. Recovery ends on
    /// the first ACK that acknowledges new data, even a partial one.
    Reno,
    /// RFC 6582 NewReno: fast recovery lasts until all data outstanding at
    /// its start is acknowledged; each partial ACK retransmits the next hole.
    /// The default: a scenario's `cc = "newreno"` (or `"reno"`) without a
    /// `recovery` key is NewReno TCP, RFC 5681 window growth with this
    /// recovery (`crate::scenario`'s test `newreno_alone_is_reno_growth_with_newreno_recovery`).
    NewReno,
    /// RFC 6675 conservative SACK-based loss recovery (scoreboard, IsLost,
    /// NextSeg, pipe). Needs SACK to be negotiated; if the peer does not
    /// permit SACK the connection falls back to NewReno (RFC 6675 section 1
    /// only applies when SACK is in use).
    Sack,
}

/// The initial congestion window (RFC 5681 section 3.1 / RFC 6928).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialWindow {
    /// RFC 5681 section 3.1: 2 segments if SMSS > 2190 bytes, 3 if
    /// 1095 < SMSS <= 2190, 4 otherwise (3 segments for SMSS 1460).
    Rfc5681,
    /// RFC 6928 section 2: min(10 * SMSS, max(2 * SMSS, 14600 bytes)).
    Rfc6928,
    /// A fixed number of segments (ns-2's `windowInit_` style).
    Segments(u32),
}

impl InitialWindow {
    /// The initial window in bytes for a given SMSS.
    pub fn bytes(self, smss: u32) -> u64 {
        let s = smss as u64;
        match self {
            InitialWindow::Rfc5681 => {
                if smss > 2190 {
                    2 * s
                } else if smss > 1095 {
                    3 * s
                } else {
                    4 * s
                }
            }
            InitialWindow::Rfc6928 => (10 * s).min((2 * s).max(14_600)),
            InitialWindow::Segments(n) => n.max(1) as u64 * s,
        }
    }
}

/// Receive buffer size, which bounds the advertised window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecvBuffer {
    Bytes(u64),
    /// `n` full segments of the configured MSS (a "window of N packets",
    /// as ns-2's `window_` parameter).
    Segments(u32),
}

impl RecvBuffer {
    pub fn bytes(self, mss: u32) -> u64 {
        match self {
            RecvBuffer::Bytes(b) => b,
            RecvBuffer::Segments(n) => n as u64 * mss as u64,
        }
    }
}

/// Delayed-ACK policy (RFC 1122 section 4.2.3.2, RFC 5681 section 4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelayedAck {
    /// Acknowledge at the latest every `count`-th in-order segment
    /// (RFC 5681 4.2: "at least every second full-sized segment"; 2).
    pub count: u32,
    /// Delayed-ACK timer. RFC 1122 4.2.3.2 caps it at 500 ms; 200 ms is the
    /// classic BSD/ns-2 value and the default here.
    pub timeout: SimDur,
}

impl Default for DelayedAck {
    fn default() -> Self {
        DelayedAck { count: 2, timeout: SimDur::from_millis(200) }
    }
}

/// The default receive buffer with window scaling: the largest receive
/// buffer Linux's autotuning grows a connection's to (`net.ipv4.tcp_rmem`
/// max, 6 MiB, the kernel default since 4.20). Model choice: the buffer
/// starts there instead of at tcp_rmem's 128 KiB default, because
/// autotuning (dynamic right-sizing) doubles it each round trip an
/// application reads at the arrival rate, keeping the window ahead of a
/// slow-start cwnd; an application that reads at once (`auto_consume`)
/// never sees the difference.
pub const LINUX_RMEM_MAX: u64 = 6 * 1024 * 1024;

/// The largest receive buffer without window scaling (RFC 7323 2.2: the
/// 16-bit window field).
pub const UNSCALED_WINDOW_MAX: u64 = 65_535;

/// Configuration of one TCP endpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// MSS announced in our SYN and the largest payload we send
    /// (bytes; default 1460 = Ethernet MTU 1500 - 40, RFC 9293 3.7.1).
    /// The effective sender MSS is min(ours, peer's announced MSS, or 536
    /// if the peer announced none), minus 12 bytes when timestamps are in
    /// use (RFC 6691: the data length is reduced by the options carried).
    pub mss: u32,
    /// Initial congestion window (default RFC 5681). RFC 5681 3.1 / RFC
    /// 6928: if the SYN or SYN-ACK was retransmitted, the initial window is
    /// one segment regardless of this setting.
    pub initial_window: InitialWindow,
    /// Initial ssthresh in bytes; `None` = "arbitrarily high" (RFC 5681 3.1).
    pub initial_ssthresh: Option<u64>,
    /// Receive buffer (bounds the advertised window). Default
    /// [`LINUX_RMEM_MAX`] (6 MiB) with window scaling, 65535 bytes (the
    /// largest window expressible) without it.
    pub recv_buffer: RecvBuffer,
    /// Offer the window-scale option (RFC 7323 section 2; default on).
    pub window_scaling: bool,
    /// Offer SACK-permitted and generate SACK blocks (RFC 2018; default on).
    pub sack: bool,
    /// Offer timestamps (RFC 7323 section 3). Default off (ns-2 default; the
    /// seeded papers do not state it). When on, RTT is sampled on every ACK
    /// that advances `snd_una`, retransmissions included.
    pub timestamps: bool,
    /// Timestamp clock tick (RFC 7323 5.4: between 1 ms and 1 s; 1 ms).
    pub ts_tick: SimDur,
    /// Delayed ACKs; `None` acknowledges every segment immediately.
    pub delayed_ack: Option<DelayedAck>,
    /// Lower bound on the RTO. RFC 6298 (2.4) says 1 s (default); Linux
    /// uses 200 ms, ns-2 200 ms or 1 s depending on version.
    pub min_rto: SimDur,
    /// Upper bound on the (backed-off) RTO; RFC 6298 (2.5) allows a maximum
    /// of at least 60 s (default 60 s).
    pub max_rto: SimDur,
    /// RTO before any RTT sample: 1 s (RFC 6298 (2.1)).
    pub initial_rto: SimDur,
    /// Clock granularity G of RFC 6298 (2.2)/(2.3): RTO = SRTT + max(G,
    /// 4 RTTVAR). Default 1 ms (Linux jiffy-scale; ns-2 uses `tcpTick_`).
    pub clock_granularity: SimDur,
    /// SYN / SYN-ACK transmissions after the first before giving up
    /// (Linux `tcp_syn_retries` = 6).
    pub syn_retries: u32,
    /// Consecutive RTO expirations for the same data before the connection
    /// is aborted (RFC 9293 3.8.3 R2 must cover >= 100 s; Linux
    /// `tcp_retries2` = 15).
    pub max_retransmissions: u32,
    /// Loss-recovery algorithm (default NewReno, RFC 6582).
    pub recovery: RecoveryVariant,
    /// Duplicate-ACK threshold DupThresh (RFC 5681 3.2, RFC 6675: 3).
    pub dupthresh: u32,
    /// RACK-TLP loss detection (RFC 8985, `crate::rack`) on top of the
    /// SACK variant; default off (RFC 6675 alone). Linux enables it by
    /// default (net.ipv4.tcp_recovery = 1).
    pub rack_tlp: bool,
    /// Limited Transmit (RFC 3042), a SHOULD of RFC 5681 3.2 (default on).
    pub limited_transmit: bool,
    /// Nagle's algorithm (RFC 9293 3.7.4 / RFC 1122 4.2.3.4; default on).
    /// Only affects sub-MSS segments, i.e. applications writing in small
    /// pieces.
    pub nagle: bool,
    /// Restart window after an idle period longer than the RTO (RFC 5681
    /// 4.1, a SHOULD; default on).
    pub idle_restart: bool,
    /// TIME-WAIT duration. RFC 9293 says 2 MSL (MSL = 2 min, i.e. 4 min);
    /// the default here is Linux's 60 s; scenarios usually shorten it.
    pub time_wait: SimDur,
    /// The receiving application consumes in-order data at once (default).
    /// When false, data waits in the receive buffer until
    /// [`crate::Connection::read`], and the advertised window shrinks.
    pub auto_consume: bool,
    /// Keep a cwnd/ssthresh trace and a loss-event log in [`crate::TcpStats`].
    pub trace: bool,
    /// Pace data segments at the connection's own rate (Linux's
    /// `tcp_update_pacing_rate`, see [`crate::sender`]) when the controller
    /// sets none; default off (RFC 5681 sends as the ACK clock allows). A
    /// controller that sets a pacing rate (BBR) paces whatever this says.
    pub pacing: bool,
    /// ECN (RFC 3168; [`crate::ecn`]): off (default), classic, or the
    /// per-segment echo of RFC 8257 3.2 (`Accurate`).
    pub ecn: crate::ecn::EcnMode,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            initial_window: InitialWindow::Rfc5681,
            initial_ssthresh: None,
            recv_buffer: RecvBuffer::Bytes(LINUX_RMEM_MAX),
            window_scaling: true,
            sack: true,
            timestamps: false,
            ts_tick: SimDur::from_millis(1),
            delayed_ack: Some(DelayedAck::default()),
            min_rto: SimDur::from_secs(1),
            max_rto: SimDur::from_secs(60),
            initial_rto: SimDur::from_secs(1),
            clock_granularity: SimDur::from_millis(1),
            syn_retries: 6,
            max_retransmissions: 15,
            recovery: RecoveryVariant::NewReno,
            dupthresh: 3,
            rack_tlp: false,
            limited_transmit: true,
            nagle: true,
            idle_restart: true,
            time_wait: SimDur::from_secs(60),
            auto_consume: true,
            trace: false,
            pacing: false,
            ecn: crate::ecn::EcnMode::Off,
        }
    }
}

impl TcpConfig {
    /// Check the configuration; the error names the field and the reason.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.mss < 64 || self.mss > 65_495 {
            return Err(ConfigError::new("mss", format!("{} is outside 64..=65495", self.mss)));
        }
        if self.timestamps && self.mss <= 12 + 64 {
            return Err(ConfigError::new("mss", "too small to carry timestamps"));
        }
        if self.recv_buffer.bytes(self.mss) < self.mss as u64 {
            return Err(ConfigError::new("recv_buffer", "smaller than one segment"));
        }
        if self.min_rto.as_nanos() == 0 || self.min_rto > self.max_rto {
            return Err(ConfigError::new("min_rto", "must be positive and not above max_rto"));
        }
        if self.initial_rto.as_nanos() == 0 {
            return Err(ConfigError::new("initial_rto", "must be positive"));
        }
        if self.ts_tick.as_nanos() == 0 {
            return Err(ConfigError::new("ts_tick", "must be positive"));
        }
        if self.dupthresh == 0 {
            return Err(ConfigError::new("dupthresh", "must be at least 1"));
        }
        if let Some(d) = self.delayed_ack {
            if d.count == 0 {
                return Err(ConfigError::new("delayed_ack.count", "must be at least 1"));
            }
            if d.timeout > SimDur::from_millis(500) {
                return Err(ConfigError::new("delayed_ack.timeout", "RFC 1122 4.2.3.2 caps it at 500 ms"));
            }
        }
        if let RecvBuffer::Bytes(b) = self.recv_buffer {
            if !self.window_scaling && b > 65_535 {
                return Err(ConfigError::new("recv_buffer", "above 65535 bytes needs window_scaling"));
            }
        }
        if let RecvBuffer::Segments(n) = self.recv_buffer {
            if !self.window_scaling && n as u64 * self.mss as u64 > 65_535 {
                return Err(ConfigError::new("recv_buffer", "above 65535 bytes needs window_scaling"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_window_rules() {
        // RFC 5681 3.1
        assert_eq!(InitialWindow::Rfc5681.bytes(1460), 3 * 1460);
        assert_eq!(InitialWindow::Rfc5681.bytes(536), 4 * 536);
        assert_eq!(InitialWindow::Rfc5681.bytes(4000), 8000);
        // RFC 6928 2
        assert_eq!(InitialWindow::Rfc6928.bytes(1460), 14_600);
        assert_eq!(InitialWindow::Rfc6928.bytes(536), 5360);
        assert_eq!(InitialWindow::Rfc6928.bytes(9000), 18_000);
        assert_eq!(InitialWindow::Segments(2).bytes(1000), 2000);
    }

    #[test]
    fn validation_names_the_field() {
        assert!(TcpConfig::default().validate().is_ok());
        let c = TcpConfig { recv_buffer: RecvBuffer::Segments(100), window_scaling: false, ..Default::default() };
        assert_eq!(c.validate().unwrap_err().path, "recv_buffer");
        let c = TcpConfig { dupthresh: 0, ..Default::default() };
        assert_eq!(c.validate().unwrap_err().path, "dupthresh");
    }
}
