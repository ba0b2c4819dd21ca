//! What became of a transmitter's MPDUs at their receiver, as the medium
//! reports it (`Mac::on_verdict`): the transmitter's log of the MSDUs that
//! reached the receiver, and the loss of an MSDU sent with the No Ack
//! policy.
//!
//! Two of the ledger's cases are the transmitter's to settle, because only
//! the medium's verdict (not any response) tells them:
//! - An MSDU in a QoS Data MPDU with the No Ack policy (9.2.4.5.4) that
//!   its receiver did not get is lost: nobody retransmits it and no
//!   response reports it, so the transmitter drops it
//!   (`DropReason::NoAckLost`) when the verdict arrives.
//! - An MSDU whose every acknowledgement was lost reached its receiver
//!   (which delivered it) although the transmitter retransmits it up to
//!   the retry limit and then discards it. That discard is the MAC's count
//!   (`drops_retry_limit`), not the packet's fate:
//!   [`Receipts::discard`] reports it as `DiscardedAfterReceipt`.
//!
//! Invariants: an MSDU is listed only after a verdict that its receiver
//! decoded an MPDU carrying it; the log holds the last such MSDU and, once
//! the station keeps several MPDUs outstanding (an aggregate, or an MPDU
//! with the Block Ack policy), the latest [`SEVERAL`] receptions of MPDUs
//! to be acknowledged (a window of 64 MSDUs with 7 attempts each fits).
use std::collections::VecDeque;

use super::super::frame::{AckPolicy, Frame, MacOutput, MacSink};
use wifitcp_core::{DropReason, PacketId};

/// Capacity of the log of a station that keeps several MPDUs outstanding:
/// 64 MSDUs x 7 attempts, rounded up.
pub const SEVERAL: usize = 512;

/// No MSDU: a packet id no run reaches (ids count packets from 0).
const NONE: PacketId = PacketId(u64::MAX);

/// One transmitter's log of MSDUs that reached their receiver.
#[derive(Clone, Debug)]
pub struct Receipts {
    /// The MSDU of the last data frame that reached its receiver (`NONE`:
    /// none yet; one word where an `Option` takes two).
    last: PacketId,
    /// Recent receptions, once the station keeps several MPDUs
    /// outstanding (`None` for stations that never do: one word in every
    /// MAC, not a `VecDeque`'s four).
    #[allow(clippy::box_collection)]
    several: Option<Box<VecDeque<PacketId>>>,
}

impl Default for Receipts {
    fn default() -> Receipts {
        Receipts { last: NONE, several: None }
    }
}

impl Receipts {
    /// The medium's verdict on data frame `f` this station sent: `received`
    /// is whether its intended receiver (a station of the cell) received
    /// the PPDU; each MPDU's `fcs_ok` holds its own outcome there. Emits the
    /// No Ack losses and logs what reached the receiver.
    #[inline]
    pub fn verdict(&mut self, f: &Frame, received: bool, out: &mut impl MacSink) {
        for m in f.mpdus.iter() {
            if m.ack == AckPolicy::NoAck && !(received && m.fcs_ok) {
                if let Some(id) = m.msdu_id() {
                    out.push(MacOutput::Dropped(id, DropReason::NoAckLost));
                }
            }
        }
        if received {
            self.note(f);
        }
    }

    /// Log the MSDUs of received frame `f` (see the invariants).
    fn note(&mut self, f: &Frame) {
        // The usual frame of one MPDU from a station that never kept
        // several outstanding: the general case below in short.
        if let Some(m) = f.mpdus.single() {
            if m.ack != AckPolicy::BlockAck && self.several.is_none() {
                if m.fcs_ok {
                    if let Some(id) = m.msdu_id() {
                        self.last = id;
                    }
                }
                return;
            }
        }
        if let Some(id) = f.mpdus.iter().rev().filter(|m| m.fcs_ok).find_map(|m| m.msdu_id()) {
            self.last = id;
        }
        let several = f.mpdus.len() > 1 || f.mpdus.iter().any(|m| m.ack == AckPolicy::BlockAck);
        if several || self.several.is_some() {
            for m in f.mpdus.iter().filter(|m| m.fcs_ok && m.ack != AckPolicy::NoAck) {
                if let Some(id) = m.msdu_id() {
                    // (made at the first MSDU logged: `None` stands for
                    // an empty log)
                    let q = self.several.get_or_insert_with(Box::default);
                    if q.len() == SEVERAL {
                        q.pop_front();
                    }
                    q.push_back(id);
                }
            }
        }
    }

    /// Whether MSDU `id` reached its receiver (as far as the log reaches).
    #[inline]
    pub fn reached(&self, id: PacketId) -> bool {
        (self.last == id && id != NONE) || self.several.as_ref().is_some_and(|q| q.contains(&id))
    }

    /// The output for MSDU `id` discarded at the retry limit: `Dropped`,
    /// or `DiscardedAfterReceipt` if a copy reached its receiver.
    #[inline]
    pub fn discard(&self, id: PacketId) -> MacOutput {
        if self.reached(id) {
            MacOutput::DiscardedAfterReceipt(id)
        } else {
            MacOutput::Dropped(id, DropReason::RetryLimit)
        }
    }
}
