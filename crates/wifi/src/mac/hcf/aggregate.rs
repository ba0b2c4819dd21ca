//! What goes into the next frame exchange of a transmit link: an A-MPDU
//! (HT), a block of SIFS-separated frames (non-HT BlockAck), or one MPDU.
//!
//! Limits, each from the standard or the agreement:
//! - MPDUs: at most `max_mpdus`, and only sequence numbers inside the
//!   originator's window (WinStartO + WinSizeO, 10.25.6.1: the
//!   `Originator` refuses the rest);
//! - octets of an A-MPDU: at most `max_ampdu_bytes` (the recipient's
//!   Maximum A-MPDU Length, 9.4.2.55.3), counting delimiters and padding
//!   (9.7.1);
//! - time: an HT, VHT or HE PPDU lasts at most aPPDUMaxTime (5.484 ms,
//!   Tables 19-25, 21-28, 27-51); with a TXOP limit the whole exchange (data, SIFS, response)
//!   ends within the TXOP (10.22.2.9). A first MPDU that alone overruns
//!   the TXOP is still sent (10.22.2.9 allows a single frame exchange
//!   beyond the limit only for a TXOP limit of 0; the scenario rejects a
//!   TXOP limit shorter than one frame exchange, so this happens only for
//!   an MSDU longer than the scenario's).
//!
//! Retransmissions go first: `Originator::pending` lists the MPDUs to send
//! oldest first, and unacknowledged MPDUs are older than new ones.
use super::{Hcf, Item};
use crate::phy::ht::{subframe_bytes, PPDU_MAX_TIME};
use wifitcp_core::{SimDur, SimTime};

/// The MPDUs chosen for an exchange: (sequence number, MPDU octets).
pub(super) struct Chosen {
    pub mpdus: Vec<(u16, u32, Item)>,
    /// PSDU octets (A-MPDU with delimiters and padding, or the MPDU).
    pub psdu: u32,
}

impl Hcf {
    /// Move MSDUs from the link's queue into its originator while the
    /// window allows and fewer than `max_mpdus` wait to be sent.
    pub(super) fn admit(&mut self, l: usize) -> bool {
        let max = usize::from(self.max_per_exchange());
        let link = &mut self.links[l];
        let mut took = false;
        while link.orig.pending().count() < max && link.orig.can_accept() {
            let Some(item) = link.queue.pop_front() else { break };
            if link.orig.accept(item).is_err() {
                unreachable!("window checked");
            }
            took = true;
        }
        took
    }

    /// MPDUs per exchange: `max_mpdus` under an agreement, else one.
    pub(super) fn max_per_exchange(&self) -> u16 {
        if self.p.block_ack {
            self.p.max_mpdus
        } else {
            1
        }
    }

    /// Choose the MPDUs of the next exchange of link `l` at `now`, within
    /// the TXOP that ends at `txop_end` (`None`: no limit).
    pub(super) fn choose(&self, l: usize, now: SimTime, txop_end: Option<SimTime>) -> Chosen {
        let t = &self.p.timing;
        let link = &self.links[l];
        let ht = t.ht.is_some();
        let aggregate = ht && self.p.block_ack;
        let no_ack = self.p.no_ack[link.ac as usize];
        // Without A-MPDU, No Ack frames go one MPDU per PPDU and per
        // exchange (9.2.4.5.4: no BlockAck session closes them); more of
        // them in one TXOP are the TXOP's continuation, SIFS apart.
        let max = if !ht && no_ack { 1 } else { usize::from(self.max_per_exchange()) };
        // Time the exchange may take, response included.
        let budget = txop_end.map(|e| e.saturating_since(now));
        let mut out: Vec<(u16, u32, Item)> = Vec::new();
        // Octets of the subframes chosen so far, each padded.
        let mut padded = 0u32;
        let mut psdu = 0u32;
        let mut burst = SimDur::ZERO;
        for (sn, item) in link.orig.pending().take(max) {
            let bytes = item.bytes;
            if aggregate {
                let grown_padded = padded + subframe_bytes(bytes, false);
                let grown = grown_padded - subframe_bytes(bytes, false) + subframe_bytes(bytes, true);
                if !out.is_empty() {
                    let air = t.data_ppdu_time(grown);
                    let resp = if no_ack { SimDur::ZERO } else { t.sifs + self.block_ack_time() };
                    if grown > self.p.max_ampdu_bytes || air > PPDU_MAX_TIME || budget.is_some_and(|b| air + resp > b) {
                        break;
                    }
                }
                padded = grown_padded;
                psdu = grown;
            } else if self.p.block_ack && !ht {
                // A block: data frames SIFS apart, then BlockAckReq and
                // BlockAck (unless No Ack).
                let air = t.data_ppdu_time(bytes);
                let next = burst + if out.is_empty() { SimDur::ZERO } else { t.sifs } + air;
                let tail = if no_ack { SimDur::ZERO } else { t.sifs * 2 + self.bar_time() + self.block_ack_time() };
                if !out.is_empty() && budget.is_some_and(|b| next + tail > b) {
                    break;
                }
                burst = next;
                psdu = bytes;
            } else {
                psdu = bytes;
            }
            out.push((sn, bytes, item.clone()));
        }
        // A single MPDU is sent alone, not as an A-MPDU (no delimiter), in
        // an HT PPDU; a VHT or HE PPDU always carries an A-MPDU, a single
        // MPDU as an S-MPDU with its delimiter (10.12.8).
        if out.len() == 1 {
            let smpdu = t.ht.is_some_and(|v| v.every_ppdu_ampdu());
            psdu = if smpdu { subframe_bytes(out[0].1, true) } else { out[0].1 };
        }
        Chosen { mpdus: out, psdu }
    }
}
