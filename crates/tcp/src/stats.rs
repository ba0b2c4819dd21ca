//! Per-connection counters and optional traces.
use crate::cc::LossKind;
use wifitcp_core::SimTime;

/// One point of the congestion-window trace (recorded on change).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CwndSample {
    pub time: SimTime,
    pub cwnd: u64,
    pub ssthresh: u64,
}

/// One point of the controller's state trace (recorded on change, with
/// `TcpConfig::trace`, for controllers that report a state: BBR).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcSample {
    pub time: SimTime,
    pub cwnd: u64,
    pub state: crate::cc::CcTraceState,
}

/// One loss detection and the sender's reaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossEvent {
    pub time: SimTime,
    pub kind: LossKind,
    /// FlightSize passed to the controller: at a fast retransmit RFC
    /// 5681's `snd_max - snd_una` minus Limited Transmit segments; at a
    /// timeout the data in the network (`Sender::in_flight`: RFC 6675's
    /// pipe during SACK recovery or after an earlier timeout).
    pub flight: u64,
    pub ssthresh: u64,
    pub cwnd_after: u64,
}

/// Counters of one endpoint. Byte counts are payload bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpStats {
    /// Every segment emitted (data, pure ACK, SYN, FIN, probes).
    pub segments_sent: u64,
    /// Segments carrying payload (first transmissions and retransmissions).
    pub data_segments_sent: u64,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    pub bytes_retransmitted: u64,
    /// Data/FIN segments retransmitted (fast retransmit, partial ACK, SACK
    /// recovery, RTO go-back-N).
    pub segments_retransmitted: u64,
    /// Pure ACKs sent.
    pub acks_sent: u64,
    /// Loss events detected by duplicate ACKs / SACK (each entry into fast
    /// recovery, or a Tahoe fast retransmit).
    pub fast_retransmits: u64,
    /// NewReno partial-ACK retransmissions (RFC 6582 3.2 step 3).
    pub partial_ack_retransmits: u64,
    /// Retransmissions on a new ACK after a fine-grained timeout (Vegas,
    /// B&P 3.1 second check).
    pub fine_grained_retransmits: u64,
    /// Retransmission-timer expirations on data (RFC 6298 5.4).
    pub timeouts: u64,
    /// Segments RACK deemed lost by time (RFC 8985 6.2), and tail loss
    /// probes sent (7.3); zero without `rack_tlp`.
    pub rack_marked_lost: u64,
    pub tlp_probes: u64,
    /// SYN or SYN-ACK retransmissions.
    pub syn_retransmits: u64,
    /// Duplicate ACKs received (per the variant's definition).
    pub dupacks_received: u64,
    pub rtt_samples: u64,
    /// Sum of the RTT samples (ns; with `rtt_samples`, their mean).
    pub rtt_sum_ns: u64,
    /// Payload bytes cumulatively acknowledged by the peer.
    pub bytes_acked: u64,
    /// Zero-window probes sent (RFC 9293 3.8.6.1).
    pub window_probes: u64,
    /// Data segments received CE-marked (ECN in use).
    pub ce_received: u64,
    /// ACKs received with ECE (ECN in use).
    pub ece_received: u64,
    /// Window reductions in answer to ECE (RFC 3168 6.1.2).
    pub ecn_reductions: u64,
    /// Largest `snd_max - snd_una` observed (bytes, sequence space).
    pub max_flight: u64,
    /// cwnd/ssthresh trace, if `TcpConfig::trace`.
    pub cwnd_trace: Vec<CwndSample>,
    /// Loss events, if `TcpConfig::trace`.
    pub loss_events: Vec<LossEvent>,
    /// The controller's state over time, if `TcpConfig::trace` and the
    /// controller reports one.
    pub cc_trace: Vec<CcSample>,
}
