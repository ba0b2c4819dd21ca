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
//!   PSDU length and its RU (`MuUserTx::ru`, judged by
//!   `FrameErrorModel::ru_success_parts`), as `Bss::judge` judges an SU
//!   PPDU (the PHY header once, then each MPDU). The AP keeps an SU PPDU's
//!   power per tone, so each RU sees the channel's SNR per subcarrier
//!   (`TxVector::ru_error_params`); no inter-RU interference.
//! - Each user learns its own outcome (`MuUserTx::ok`): PHY-RXEND without
//!   error when some MPDU of its PSDU got through.
//! - The stations of the PPDU's users all leave the bystander group when it
//!   ends (they take part in the exchange), as the RA of an SU frame does.
//! - An uplink HE TB PPDU (802.11ax-2021 26.5.2, 27.3.4) is one
//!   transmission too, started by the first of its users whose MAC starts
//!   it (each that decoded the Trigger has it due SIFS after): when it
//!   starts the medium takes every other triggered station's share
//!   (`Mac::take_tb_share`) into it; user `i`'s MPDUs are judged with the
//!   error model of the link from station `i` to the AP on its RU (the
//!   station's whole power on the RU's tones: `TxVector::ru_error_params`),
//!   and station `i` gets the verdict on them (`Mac::on_verdict`). Model
//!   choices: no uplink power control, no inter-RU interference; a
//!   collision loses every user's share.
use super::Bss;
use crate::mac::{Frame, FrameKind, Mac, Mpdus};
use crate::phy::ppdu::RuLink;

impl<M: Mac> Bss<M> {
    /// Judge MU PPDU `f` of station `s` user by user (module docs); each
    /// MPDU's `fcs_ok` and each user's `ok` set. Returns whether some user
    /// received its PSDU. Uplink: each user's share is judged on the link
    /// from its station to the AP, and that station gets the verdict on
    /// its own MPDUs.
    pub(super) fn judge_mu(
        &mut self,
        now: wifitcp_core::SimTime,
        s: usize,
        f: &mut Frame,
        noise: Option<super::sense::Spans<'_>>,
        out: &mut Vec<super::BssOutput>,
    ) -> bool {
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
            let ru = u.ru.map(|size| RuLink { size, uplink: mu.uplink });
            if mine.is_empty() {
                // An uplink user with nothing to send: its QoS Null, judged
                // as a frame of no MSDU is (its Queue Size reaches the AP).
                let mut null = Frame {
                    kind: FrameKind::QosNull,
                    ta: u.addr,
                    mpdu_bytes: u.psdu,
                    rate: u.rate,
                    ..f.clone_header()
                };
                u.ok = self.judge_user(now, u.addr.0 as usize, &mut null, ru, noise, 0);
                any |= u.ok;
                continue;
            }
            let mpdus =
                if mine.len() == 1 { Mpdus::one(mine.into_iter().next().expect("one")) } else { Mpdus::many(mine) };
            let (ta, ra, t) = if mu.uplink { (u.addr, f.ra, u.addr.0 as usize) } else { (f.ta, u.addr, s) };
            let mut one = Frame { ta, ra, mpdu_bytes: u.psdu, rate: u.rate, mpdus, mu: None, ..f.clone_header() };
            u.ok = self.judge_user(now, t, &mut one, ru, noise, u.psdu_max);
            if mu.uplink {
                self.verdict(now, t, &one, u.ok, out);
            }
            any |= u.ok;
            all.extend(one.mpdus.into_vec());
        }
        f.mpdus = Mpdus::many(all);
        f.mu = Some(mu);
        any
    }

    /// Station `s` starts an HE TB PPDU of uplink data, the last of
    /// `frames`: every other triggered station's share joins it as that
    /// user's MPDUs, in the Trigger's user order (`mac::mu_frame`); a user
    /// without a share drops out.
    /// (One MAC call per user within this start, no event of its own.)
    pub(super) fn gather_tb(&mut self, now: wifitcp_core::SimTime, s: usize, out: &mut Vec<super::BssOutput>) {
        let mut f = self.frames.pop().expect("a started frame");
        let mut mu = f.mu.take().expect("an HE TB PPDU without its users");
        let mut own = Some(std::mem::take(&mut f.mpdus).into_vec());
        let mut all = Vec::new();
        let mut users = Vec::with_capacity(mu.users.len());
        for mut u in std::mem::take(&mut mu.users) {
            let t = u.addr.0 as usize;
            u.first = all.len() as u32;
            if t == s {
                // (the sender's own share, filled by its MAC)
                all.extend(own.take().expect("one sender"));
            } else {
                if t >= self.macs.len() {
                    continue;
                }
                let mut got = None;
                self.call(now, t, out, |m, mo| got = m.take_tb_share(now, mo));
                let Some(share) = got else { continue };
                u.count = share.mpdus.len() as u32;
                u.psdu = share.psdu;
                u.queue = Some(share.queue);
                all.extend(share.mpdus);
            }
            users.push(u);
        }
        f.mpdu_bytes = users.iter().map(|u| u.psdu).sum();
        mu.users = users;
        f.mpdus = Mpdus::many(all);
        f.mu = Some(mu);
        self.frames.push(f);
    }
}

impl<M: Mac> Bss<M> {
    /// One user's PSDU `f` (sent by `t`): alone on the air (`judge`), or
    /// under the interference `noise` at its receiver, its MPDUs placed in
    /// time by `psdu_max` (`judge_sensed`).
    fn judge_user(
        &mut self,
        now: wifitcp_core::SimTime,
        t: usize,
        f: &mut Frame,
        ru: Option<RuLink>,
        noise: Option<super::sense::Spans<'_>>,
        psdu_max: u32,
    ) -> bool {
        match noise {
            Some(n) => self.judge_sensed(now, t, f, ru, n, psdu_max),
            None => self.judge(now, t, f, ru),
        }
    }
}

impl Frame {
    /// The frame without its MPDUs and users (a header to build a user's
    /// share on).
    pub(super) fn clone_header(&self) -> Frame {
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
