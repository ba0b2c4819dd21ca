//! RTS/CTS protection (10.3.2.7, 10.3.2.8, 10.27.2).
//!
//! A station sends an RTS before an individually addressed data frame
//! whose PSDU is longer than dot11RTSThreshold (for an A-MPDU, the whole
//! A-MPDU: the threshold applies to the PSDU, 10.3.2.7 as amended for HT).
//! The RTS's Duration covers the rest of the exchange (CTS, data, the
//! response, three SIFS: 9.3.1.2); the CTS carries the RTS's Duration less
//! SIFS and the CTS itself (9.3.1.3). A station answers an RTS addressed to
//! it with a CTS after SIFS only if its NAV indicates idle (10.3.2.8).
use wifitcp_core::{SimDur, SimTime};

/// dot11RTSThreshold that turns RTS/CTS off: no HT PSDU is longer. A VHT
/// or HE A-MPDU may be (up to 1,048,575 or 8,388,607 octets), so a
/// threshold of 65535 or more means off for every PSDU, as its key says,
/// rather than protecting only the A-MPDUs longer than 65535 octets.
pub const RTS_OFF: u32 = 65535;

/// Whether a PSDU of `psdu_bytes` is sent after an RTS/CTS exchange. Frames
/// sent without acknowledgement are never protected here.
#[inline]
pub fn needs_rts(psdu_bytes: u32, threshold: u32, acknowledged: bool) -> bool {
    acknowledged && threshold < RTS_OFF && psdu_bytes > threshold
}

/// Duration field of an RTS protecting a data PPDU of airtime `data` whose
/// response takes `response` (zero: none): 3 x SIFS + CTS + data +
/// response (9.3.1.2; 2 x SIFS without a response).
#[inline]
pub fn rts_duration(sifs: SimDur, cts: SimDur, data: SimDur, response: SimDur) -> SimDur {
    let resp = if response == SimDur::ZERO { SimDur::ZERO } else { sifs + response };
    sifs * 2 + cts + data + resp
}

/// Duration field of the CTS answering an RTS whose Duration was
/// `rts_duration` (9.3.1.3).
#[inline]
pub fn cts_duration(rts_duration: SimDur, sifs: SimDur, cts: SimDur) -> SimDur {
    rts_duration.saturating_sub(sifs + cts)
}

/// Whether a station whose NAV ends at `nav_end` answers an RTS at `now`.
#[inline]
pub fn answers_rts(nav_end: SimTime, now: SimTime) -> bool {
    nav_end <= now
}
