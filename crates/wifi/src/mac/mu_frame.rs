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
//! - A Basic Trigger frame (`FrameKind::Trigger`, 9.3.1.22.2) lists the
//!   stations it solicits: each user's `psdu` is the most octets its RU
//!   carries in the HE TB PPDU of `tb_response`'s duration, `rate` its
//!   RU's rate; no MPDUs.
//! - An HE TB PPDU of uplink data (`uplink`) is one `Frame` of QoS Data
//!   sent by the first of its users to start it (its TA; every user that
//!   decoded the Trigger has it due at the same instant), RA the AP: when
//!   it starts, the medium takes every other triggered station's share
//!   (`Mac::take_tb_share`, [`TbShare`]; that station's own is then not
//!   sent) as that user's MPDUs, in the Trigger's user order; each user's
//!   PSDU is judged at the AP on the link from that user, and each user's
//!   station gets the verdict on its own MPDUs (`medium::mu`). A station
//!   that did not decode the Trigger has no share and drops out of the
//!   user list.
//! - `tb_response`: the users answer SIFS after this frame with an HE TB
//!   PPDU of that duration (a MU-BAR, or an A-MPDU carrying one). Model
//!   choice: the HE TB PPDU is one transmission on the medium, sent by the
//!   first user (its RA's station) on behalf of all (one PPDU on the air,
//!   judged once at the AP); what each user acknowledges is what reached
//!   it (`hcf::mu_exchange`).
use super::frame::{Frame, FrameKind, MacAddr, Mpdu, Mpdus};
use crate::phy::Rate;
use std::ops::Range;
use wifitcp_core::SimDur;

/// A triggered station's share of an HE TB PPDU of uplink data, taken
/// by the medium when the PPDU starts (`Mac::take_tb_share`).
#[derive(Clone, Debug)]
pub struct TbShare {
    pub mpdus: Vec<Mpdu>,
    /// Its PSDU octets (A-MPDU with delimiters and padding).
    pub psdu: u32,
    /// The Queue Size it reports (octets; `u32::MAX`: more than 9.2.4.5.6's
    /// largest value).
    pub queue: u32,
}

/// One user of a multi-user frame.
#[derive(Clone, Debug, PartialEq)]
pub struct MuUserTx {
    pub addr: MacAddr,
    /// Its MPDUs: `first .. first + count` of the frame's list.
    pub first: u32,
    pub count: u32,
    /// Its PSDU octets (A-MPDU with delimiters and padding).
    pub psdu: u32,
    /// The most octets its RU carries in the PPDU (an HE TB PPDU's user:
    /// what the Trigger allotted, whose data field the user's PSDU fills
    /// from its start, `psdu / psdu_max` of it; 0 elsewhere). The medium
    /// places the user's MPDUs in time by it when interference covers part
    /// of the PPDU (`medium::sense`).
    pub psdu_max: u32,
    /// The rate its RU carries (the error model judges its PSDU at it).
    pub rate: Rate,
    /// The size of its RU in an HE MU or HE TB PPDU (the error model judges
    /// its PSDU on it, `TxVector::ru_error_params`); `None` for the users
    /// of a control frame.
    pub ru: Option<crate::phy::he_mu::RuSize>,
    /// Its PSDU reached it (set by the medium; meaningful at the users;
    /// uplink: at the AP).
    pub ok: bool,
    /// Uplink: the Queue Size the station reports in its share (QoS
    /// Control of its MPDUs, 9.2.4.5.6), octets (`u32::MAX`: more than
    /// the largest value); `None` elsewhere.
    pub queue: Option<u32>,
}

/// The multi-user part of a frame (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct MuInfo {
    pub users: Vec<MuUserTx>,
    /// The users answer SIFS after the frame with an HE TB PPDU of this
    /// duration, one transmission for all (sent by the first user after a
    /// MU-BAR, by the first to start it after a Basic Trigger; module
    /// docs).
    pub tb_response: Option<SimDur>,
    /// An HE TB PPDU of uplink data: each user is a sender, its share
    /// judged at the AP (the frame's RA) on its own link.
    pub uplink: bool,
    /// A BSRP Trigger frame (802.11ax-2021 9.3.1.22, BSRP variant; 26.5.5): each user
    /// answers with a QoS Null carrying its Queue Size, no data.
    pub bsrp: bool,
}

impl MuInfo {
    pub fn user(&self, a: MacAddr) -> Option<&MuUserTx> {
        self.users.iter().find(|u| u.addr == a)
    }
}

impl MuUserTx {
    /// User `addr` of a frame with one MPDU per user: MPDU `i`, of a PSDU
    /// of `psdu` octets at `rate`.
    pub fn one(addr: MacAddr, i: usize, psdu: u32, rate: Rate) -> MuUserTx {
        MuUserTx { addr, first: i as u32, count: 1, psdu, psdu_max: 0, rate, ru: None, ok: false, queue: None }
    }
    pub fn range(&self) -> Range<usize> {
        self.first as usize..(self.first + self.count) as usize
    }
}

impl Frame {
    /// A control frame the AP sends to several users at once (the Basic
    /// Trigger, the MU-BAR Trigger, the multi-STA BlockAck): `len` octets
    /// at the control rate, addressed to `users` (the first user's address
    /// is the RA), `tb_response` the HE TB PPDU it solicits, if any.
    #[allow(clippy::too_many_arguments)]
    pub fn mu_control(
        t: &crate::phy::PhyTiming,
        kind: FrameKind,
        ta: MacAddr,
        users: Vec<MuUserTx>,
        len: u32,
        duration: SimDur,
        contended: bool,
        mpdus: Mpdus,
        tb_response: Option<SimDur>,
    ) -> Frame {
        Frame {
            kind,
            ta,
            ra: users[0].addr,
            duration,
            seq: 0,
            retry: false,
            mpdu_bytes: len,
            rate: t.control_rate,
            airtime: t.tx_time(len, t.control_rate),
            contended,
            mpdus,
            mu: Some(Box::new(MuInfo { users, tb_response, uplink: false, bsrp: false })),
        }
    }

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
        if !self.kind.carries_msdus() || m.uplink {
            return None;
        }
        m.user(MacAddr(t as u32)).map(|u| u.ok)
    }
}
