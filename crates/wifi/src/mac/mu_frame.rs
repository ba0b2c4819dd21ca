//! The multi-user part of a [`Frame`] (IEEE 802.11ax-2021 26.5): which
//! stations a PPDU addresses beside its RA, each with its share of the
//! MPDU list, and whether the first of them answers with an HE TB PPDU.
//!
//! - A downlink HE MU PPDU (27.3.3) is one `Frame` of QoS Data: its MPDUs
//!   are the users' A-MPDUs one after the other, user `i` owning
//!   `mpdus[users[i].first .. users[i].first + users[i].count]`, sent on
//!   its RU at `rate` (its PSDU `psdu` octets). The medium judges each
//!   user's PSDU at that user, on its own (`medium::mu`), and gives every
//!   user its own outcome (`ok`).
//! - A Trigger frame (a MU-BAR: 9.3.1.22.3) is a control `Frame` whose RA
//!   is its first user, carrying one BlockAckReq body per user
//!   (`count` 1 each).
//! - `tb_response`: the users answer SIFS after this frame with an HE TB
//!   PPDU of that duration (a MU-BAR, or an A-MPDU carrying one). Model
//!   choice: the HE TB PPDU is one transmission on the medium, sent by the
//!   first user (its RA's station) on behalf of all (one PPDU on the air,
//!   judged once at the AP); what each user acknowledges is what reached
//!   it (`hcf::mu_exchange`).
use super::frame::{Frame, MacAddr};
use crate::phy::Rate;
use std::ops::Range;
use wifitcp_core::SimDur;

/// One user of a multi-user frame.
#[derive(Clone, Debug, PartialEq)]
pub struct MuUserTx {
    pub addr: MacAddr,
    /// Its MPDUs: `first .. first + count` of the frame's list.
    pub first: u32,
    pub count: u32,
    /// Its PSDU octets (A-MPDU with delimiters and padding).
    pub psdu: u32,
    /// The rate its RU carries (the error model judges its PSDU at it).
    pub rate: Rate,
    /// Its PSDU reached it (set by the medium; meaningful at the users).
    pub ok: bool,
}

/// The multi-user part of a frame (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct MuInfo {
    pub users: Vec<MuUserTx>,
    /// The first user answers SIFS after the frame with an HE TB PPDU of
    /// this duration, on behalf of every user (module docs).
    pub tb_response: Option<SimDur>,
}

impl MuInfo {
    pub fn user(&self, a: MacAddr) -> Option<&MuUserTx> {
        self.users.iter().find(|u| u.addr == a)
    }
}

impl MuUserTx {
    pub fn range(&self) -> Range<usize> {
        self.first as usize..(self.first + self.count) as usize
    }
}

impl Frame {
    /// Whether the frame is addressed to `a`: its RA, or one of its users.
    #[inline]
    pub fn addressed_to(&self, a: MacAddr) -> bool {
        self.ra == a || self.mu.as_ref().is_some_and(|m| m.user(a).is_some())
    }

    /// A downlink HE MU PPDU (QoS Data to several users).
    #[inline]
    pub fn is_mu_ppdu(&self) -> bool {
        self.mu.is_some() && self.kind.carries_msdus()
    }

    /// The MPDUs of the frame that are station `a`'s: a user's share of an
    /// MU PPDU, else all of them.
    pub fn mpdu_range_of(&self, a: MacAddr) -> Range<usize> {
        match self.mu.as_ref().and_then(|m| m.user(a)) {
            Some(u) => u.range(),
            None => 0..self.mpdus.len(),
        }
    }

    /// The outcome at user `t` of an MU PPDU (`None`: not a user of one).
    #[inline]
    pub fn mu_outcome(&self, t: usize) -> Option<bool> {
        let m = self.mu.as_ref()?;
        if !self.kind.carries_msdus() {
            return None;
        }
        m.user(MacAddr(t as u32)).map(|u| u.ok)
    }
}
