//! DCF parameters and counters.
use crate::mac::exchange::RetryLimit;
use crate::mac::AckPolicy;
use crate::phy::PhyTiming;

/// MIB values of the DCF (Annex C names in comments).
#[derive(Clone, Debug)]
pub struct DcfParams {
    pub timing: PhyTiming,
    /// aCWmin.
    pub cw_min: u32,
    /// aCWmax.
    pub cw_max: u32,
    /// dot11ShortRetryLimit: transmission attempts of a frame up to the RTS
    /// threshold, and of an RTS frame (at least 1).
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit: transmission attempts of a data frame sent
    /// after RTS/CTS (at least 1).
    pub long_retry_limit: u32,
    /// dot11RTSThreshold in bytes: MPDUs longer than this use RTS/CTS.
    pub rts_threshold: u32,
    /// Backoff countdown rule. `false` (default): the counter decrements
    /// only for whole slots of idle medium after DIFS/EIFS (10.3.4.3).
    /// `true`: a station that was counting when the medium turned busy also
    /// loses the slot in which it turned busy, i.e. every busy period counts
    /// as one slot, as in the slotted model of Bianchi (2000) and the EDCA
    /// slot-boundary rule (10.22.2.4).
    pub busy_slot_counts: bool,
    /// After an ACK/CTS timeout the transmitter needs DIFS of idle medium
    /// after the timeout before counting (`false`, default, as ns-3 does),
    /// or resumes when the bystanders' EIFS ends, EIFS after the end of its
    /// own frame (`true`): the single collision duration T_c = frame + EIFS
    /// that Bianchi's model assumes.
    pub eifs_after_timeout: bool,
    /// A frame arriving to an idle medium with no backoff pending is sent
    /// once the medium has been idle for DIFS (`false`, default, 10.3.4.2;
    /// ns-3), or only after a backoff drawn then (`true`): ns-2.35's
    /// `Mac802_11::send` defers DIFS + rand(CW) slots even on an idle
    /// medium. Deviation from the standard, for reproducing ns-2 studies:
    /// without it, periodic sources whose timers coincide collide on every
    /// first attempt (with a retry limit of 1, for ever).
    pub backoff_on_idle_access: bool,
    /// Ack policy of the station's data frames. `Normal` (default): non-QoS
    /// Data frames (24-byte header), each acknowledged after SIFS and
    /// retransmitted until the retry limit (10.3.2.9, 10.3.4.4). `NoAck`:
    /// QoS Data frames whose QoS Control field says No Ack (9.2.4.5.4): no
    /// ACK, no retransmission; the header is 26 bytes (9.3.2.1: QoS Control
    /// adds 2 octets). RTS/CTS is not used with it (the scenario rejects
    /// the combination). `BlockAck` is not a DCF policy (treated as Normal).
    pub ack_policy: AckPolicy,
}

/// Per-station MAC counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MacCounters {
    /// Frame exchanges started by winning contention (data or RTS).
    pub attempts: u64,
    /// Of those, retransmissions.
    pub retries: u64,
    /// MSDUs acknowledged.
    pub successes: u64,
    /// Exchanges that got no valid ACK/CTS.
    pub failures: u64,
    /// MSDUs discarded at the retry limit.
    pub drops_retry_limit: u64,
    /// Frames received in error (collision or channel error).
    pub rx_errors: u64,
    /// Data frames received and delivered up.
    pub rx_delivered: u64,
    /// Duplicate data frames discarded (10.3.2.14).
    pub rx_duplicates: u64,
    /// New MSDUs discarded as duplicates after a sequence-number wrap
    /// (reported as dropped with `DropReason::DuplicateFrame`).
    pub rx_false_duplicates: u64,
}

impl MacCounters {
    /// Add `x`'s counts (one member's MACs in several cells).
    pub fn add(&mut self, x: &MacCounters) {
        self.attempts += x.attempts;
        self.retries += x.retries;
        self.successes += x.successes;
        self.failures += x.failures;
        self.drops_retry_limit += x.drops_retry_limit;
        self.rx_errors += x.rx_errors;
        self.rx_delivered += x.rx_delivered;
        self.rx_duplicates += x.rx_duplicates;
        self.rx_false_duplicates += x.rx_false_duplicates;
    }
}

impl DcfParams {
    /// dot11ShortRetryLimit as the frame exchange layer counts it.
    #[inline]
    pub fn short_limit(&self) -> RetryLimit {
        RetryLimit(self.short_retry_limit)
    }
    /// dot11LongRetryLimit as the frame exchange layer counts it.
    #[inline]
    pub fn long_limit(&self) -> RetryLimit {
        RetryLimit(self.long_retry_limit)
    }
}
