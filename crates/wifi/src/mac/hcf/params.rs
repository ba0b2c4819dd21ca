//! HCF parameters (Annex C MIB names in comments) and the HCF's own
//! counters.
use crate::mac::edca::EdcaSet;
use crate::phy::PhyTiming;
use wifitcp_core::SimDur;

/// BlockAck frame, basic variant (9.3.1.8.2): Frame Control 2, Duration 2,
/// RA 6, TA 6, BA Control 2, Starting Sequence Control 2, a 128-octet
/// bitmap (64 MSDUs x 16 fragments) and FCS 4: the only variant a non-HT
/// agreement (802.11e's immediate BlockAck over 802.11a/g) may use.
pub const BASIC_BLOCK_ACK_LEN: u32 = 152;

#[derive(Clone, Debug)]
pub struct HcfParams {
    pub timing: PhyTiming,
    /// The EDCA parameter set the station uses (10.22.2; Table 9-155).
    pub edca: EdcaSet,
    /// Transmission attempts of an MPDU before it is discarded
    /// (dot11ShortRetryLimit, counted as in the DCF's module docs).
    pub retry_limit: u32,
    /// Whether every (station, TID) pair has an immediate BlockAck
    /// agreement (10.25). `false`: each QoS Data frame is acknowledged on
    /// its own (Normal Ack), one MPDU per frame exchange.
    pub block_ack: bool,
    /// The agreement's buffer size (WinSizeO = WinSizeB, 1-64).
    pub ba_window: u16,
    /// Most MPDUs per A-MPDU (HT) or per block of SIFS-separated frames
    /// (non-HT); at most `ba_window`.
    pub max_mpdus: u16,
    /// Most octets per A-MPDU (HT; 65,535 for Maximum A-MPDU Length
    /// Exponent 3, 9.4.2.55.3).
    pub max_ampdu_bytes: u32,
    /// No Ack policy (9.2.4.5.4) for the QoS Data of each access category,
    /// indexed by `AccessCategory as usize`.
    pub no_ack: [bool; 4],
    /// After a missed BlockAck send an explicit BlockAckReq before any
    /// more data (`true`, what ns-3 3.37's HtFrameExchangeManager does),
    /// or retransmit the unacknowledged MPDUs in the next A-MPDU, whose
    /// implicit BlockAckReq asks for the same bitmap (`false`). The
    /// standard allows both (10.25.6.4 lets the originator retransmit or
    /// send a BlockAckReq).
    pub bar_after_missed_ba: bool,
    /// dot11RTSThreshold: a data PSDU (an A-MPDU as a whole) longer than
    /// this is sent after an RTS/CTS exchange (`mac/exchange`; 65535: off).
    pub rts_threshold: u32,
    /// A station that the AP polls holds its traffic for the polls (the
    /// token of a polled list, `poll.rs`) until this long after the end
    /// of the last TXOP it was granted; `None`: it contends with EDCA
    /// between polls as well.
    pub poll_hold: Option<SimDur>,
    /// MSDUs the MAC keeps in its own queues, one per receiver and TID,
    /// taking them from the queue discipline whenever it holds fewer (what
    /// ns-3 3.37's WifiMacQueue does, whose MaxSize this is: 500 packets
    /// by default there). An exchange then takes the MPDUs of the link
    /// whose oldest MSDU is oldest (ns-3's FCFS queue scheduler) up to the
    /// A-MPDU limits. 0: the MAC holds one MSDU to contend with and an
    /// exchange's worth at the instant it wins access (module docs).
    pub mac_queue: usize,
}

/// Counters of the HCF beyond the common `MacCounters`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HcfStats {
    /// Data PPDUs sent, by number of MPDUs (index 1-64; a non-aggregated
    /// frame counts 1).
    pub mpdus_per_ppdu: Vec<u64>,
    /// BlockAcks received as originator.
    pub block_acks: u64,
    /// MPDUs a received BlockAck reported missing.
    pub bitmap_losses: u64,
    /// BlockAckReqs sent (explicit, not the implicit one of an A-MPDU).
    pub block_ack_reqs: u64,
    /// MPDU transmissions that were retransmissions.
    pub mpdu_retransmissions: u64,
    /// Times an access category lost an internal collision (10.22.2.4).
    pub internal_collisions: u64,
    /// Airtime of the frames this station sent, in ns: data, ACK,
    /// BlockAck, BlockAckReq.
    pub airtime_data_ns: u64,
    pub airtime_ack_ns: u64,
    pub airtime_block_ack_ns: u64,
    pub airtime_bar_ns: u64,
    /// RTS frames sent, and how many got no CTS.
    pub rts: u64,
    pub cts_failures: u64,
    /// Airtime of the RTS and CTS frames this station sent, in ns.
    pub airtime_rts_cts_ns: u64,
    /// AP polling (`poll.rs`): service periods, their total time, QoS
    /// CF-Polls sent, grants answered with a QoS Null, the AP's own
    /// downlink TXOPs in them, and the polling list's joins and leaves.
    pub service_periods: u64,
    pub period_ns: u64,
    pub polls: u64,
    pub poll_nulls: u64,
    /// Granted TXOPs in which nothing came from the polled station (no
    /// data, no QoS Null: the poll or every answer lost).
    pub poll_no_answers: u64,
    pub scheduled_txops: u64,
    pub list_joins: u64,
    pub list_leaves: u64,
    /// Polled station: TXOPs granted to it, and QoS Null answers.
    pub polled_txops: u64,
    pub null_answers: u64,
    /// Downlink HE MU PPDUs sent, and their users in all.
    pub mu_ppdus: u64,
    pub mu_users: u64,
    /// A station's HE TB shares that carried QoS Data, and the times an
    /// acknowledged one switched an AC to MU EDCA (802.11ax-2021 26.2.7).
    pub tb_data_shares: u64,
    pub mu_edca_switches: u64,
    /// An AP's Basic Trigger frames (26.5.2) and BSRP Trigger frames
    /// (26.5.5).
    pub basic_triggers: u64,
    pub bsrp_triggers: u64,
}
