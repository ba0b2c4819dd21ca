//! Multi-user PPDUs on the medium (IEEE 802.11ax-2021 27.3.3, 27.5): a
//! downlink HE MU PPDU is one transmission (one start, one end, one entry
//! on the air: its cost grows with PPDUs, not with RUs or MPDUs), whose
//! users' PSDUs the medium judges each at its own receiver.
//!
//! Rules (`mac::mu_frame`):
//! - Collisions are the frame's: a PPDU that another frame overlapped is
//!   lost at every user, as any frame is at its receiver.
//! - A PPDU that reached the air alone is judged user by user: user `i`'s
//!   MPDUs with the error model at user `i` (its link from the AP), on its
//!   PSDU length and its RU's rate, as `Bss::judge` judges an SU PPDU (the
//!   PHY header once, then each MPDU). Model choice: the error model sees
//!   the RU's MCS at the channel's SNR (the AP spreads its power over the
//!   whole channel, so the SNR per subcarrier, and so per RU, is the
//!   channel's); no inter-RU interference.
//! - Each user learns its own outcome (`MuUserTx::ok`): PHY-RXEND without
//!   error when some MPDU of its PSDU got through.
//! - The stations of the PPDU's users all leave the bystander group when it
//!   ends (they take part in the exchange), as the RA of an SU frame does.
use super::Bss;
use crate::mac::{Frame, Mac, Mpdus};

impl<M: Mac> Bss<M> {
    /// Judge MU PPDU `f` of station `s` user by user (module docs); each
    /// MPDU's `fcs_ok` and each user's `ok` set. Returns whether some user
    /// received its PSDU.
    pub(super) fn judge_mu(&mut self, now: wifitcp_core::SimTime, s: usize, f: &mut Frame) -> bool {
        let mut mu = f.mu.take().expect("an MU PPDU without its users");
        let mut all = std::mem::take(&mut f.mpdus).into_vec();
        let mut any = false;
        // Split from the back: each user's MPDUs move into a frame of its
        // own (no MPDU copied), are judged there and move back.
        let mut parts = Vec::with_capacity(mu.users.len());
        for u in mu.users.iter().rev() {
            debug_assert_eq!(u.first as usize + u.count as usize, all.len(), "users' MPDUs out of order");
            parts.push(all.split_off(u.first as usize));
        }
        parts.reverse();
        for (u, mine) in mu.users.iter_mut().zip(parts) {
            let mpdus =
                if mine.len() == 1 { Mpdus::one(mine.into_iter().next().expect("one")) } else { Mpdus::many(mine) };
            let mut one = Frame { ra: u.addr, mpdu_bytes: u.psdu, rate: u.rate, mpdus, mu: None, ..f.clone_header() };
            u.ok = self.judge(now, s, &mut one);
            any |= u.ok;
            all.extend(one.mpdus.into_vec());
        }
        f.mpdus = Mpdus::many(all);
        f.mu = Some(mu);
        any
    }
}

impl Frame {
    /// The frame without its MPDUs and users (a header to build a user's
    /// share on).
    fn clone_header(&self) -> Frame {
        Frame {
            kind: self.kind,
            ta: self.ta,
            ra: self.ra,
            duration: self.duration,
            seq: self.seq,
            retry: self.retry,
            mpdu_bytes: self.mpdu_bytes,
            rate: self.rate,
            airtime: self.airtime,
            contended: self.contended,
            mpdus: Mpdus::none(),
            mu: None,
        }
    }
}
