//! 802.11 frame sizes (IEEE 802.11-2020 clause 9). The MAC builds frames from
//! these; PHY timing turns the byte counts into airtime.

/// Data frame MAC header without QoS control (9.3.2.1): FC, Duration,
/// Address 1-3, Sequence Control.
pub const DATA_HEADER_LEN: u32 = 24;
/// QoS Data adds the 2-byte QoS Control field (9.2.4.5).
pub const QOS_DATA_HEADER_LEN: u32 = 26;
/// Frame check sequence.
pub const FCS_LEN: u32 = 4;
/// LLC/SNAP encapsulation of an IP datagram in an MSDU (IEEE 802.2 + RFC 1042).
pub const LLC_SNAP_LEN: u32 = 8;
/// ACK frame (9.3.1.3): FC, Duration, RA, FCS.
pub const ACK_LEN: u32 = 14;
/// CTS frame (9.3.1.2): same layout as ACK.
pub const CTS_LEN: u32 = 14;
/// RTS frame (9.3.1.2): FC, Duration, RA, TA, FCS.
pub const RTS_LEN: u32 = 20;
/// BlockAckReq (basic, compressed bitmap) (9.3.1.7).
pub const BLOCK_ACK_REQ_LEN: u32 = 24;
/// BlockAck with compressed 64-bit bitmap (9.3.1.8).
pub const BLOCK_ACK_LEN: u32 = 32;
/// CF-Poll (no data) frame: a data-type frame with no body.
pub const CF_POLL_LEN: u32 = DATA_HEADER_LEN + FCS_LEN;

/// MSDU size of an IP datagram of `ip_len` bytes.
pub const fn msdu_len(ip_len: u32) -> u32 {
    LLC_SNAP_LEN + ip_len
}

/// MPDU size of a non-QoS data frame carrying an MSDU of `msdu` bytes.
pub const fn data_mpdu_len(msdu: u32) -> u32 {
    DATA_HEADER_LEN + msdu + FCS_LEN
}
