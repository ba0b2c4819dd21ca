//! The originator of a BlockAck agreement (10.25.6.1, 10.25.2): assigns
//! sequence numbers, keeps each MPDU until a BlockAck acknowledges it or
//! its retry limit is reached, and tells the MAC which MPDUs to
//! retransmit in its next A-MPDU and when a BlockAckReq must move the
//! recipient's window past MPDUs it gave up on.
use super::{sn_add, sn_dist, sn_lt, Bitmap, MAX_WINDOW};
use crate::mac::exchange::RetryLimit;
use std::collections::VecDeque;

#[derive(Debug)]
struct Entry<T> {
    sn: u16,
    item: T,
    /// Transmissions so far.
    attempts: u32,
    /// Sent and not yet judged by a BlockAck or a timeout.
    in_flight: bool,
}

/// What a BlockAck or a BlockAck timeout decided.
#[derive(Debug)]
pub struct BaOutcome<T> {
    /// MPDUs acknowledged, in sequence-number order.
    pub acked: Vec<T>,
    /// MPDUs dropped after `attempts` reached the retry limit.
    pub dropped: Vec<T>,
    /// MPDUs that wait for retransmission.
    pub to_retry: usize,
}

/// Transmit side of one agreement (one receiver and traffic identifier).
#[derive(Debug)]
pub struct Originator<T> {
    win_size: u16,
    /// Transmissions of an MPDU before it is discarded (its attempts are
    /// its failures when it is judged: every one in flight failed or not).
    retry_limit: RetryLimit,
    next_sn: u16,
    /// Outstanding MPDUs in sequence-number order (oldest first).
    queue: VecDeque<Entry<T>>,
    /// A BlockAckReq is due with this starting sequence number.
    bar: Option<u16>,
}

impl<T> Originator<T> {
    /// An agreement starting at `ssn` with a window of `win_size` (1-256)
    /// and `retry_limit` transmissions per MPDU (at least 1).
    pub fn new(ssn: u16, win_size: u16, retry_limit: u32) -> Originator<T> {
        assert!((1..=MAX_WINDOW).contains(&win_size) && retry_limit >= 1);
        Originator {
            win_size,
            retry_limit: RetryLimit(retry_limit),
            next_sn: ssn % super::SN_MODULO,
            queue: VecDeque::new(),
            bar: None,
        }
    }

    /// WinStartO: the oldest outstanding sequence number, or the next one.
    pub fn win_start(&self) -> u16 {
        self.queue.front().map_or(self.next_sn, |e| e.sn)
    }

    /// Whether a new MPDU fits in the transmit window.
    pub fn can_accept(&self) -> bool {
        sn_dist(self.win_start(), self.next_sn) < self.win_size
    }

    /// Take a new MPDU; returns its sequence number, or gives it back when
    /// the window is full.
    pub fn accept(&mut self, item: T) -> Result<u16, T> {
        if !self.can_accept() {
            return Err(item);
        }
        let sn = self.next_sn;
        self.next_sn = sn_add(sn, 1);
        self.queue.push_back(Entry { sn, item, attempts: 0, in_flight: false });
        Ok(sn)
    }

    /// MPDUs waiting to be sent (never sent, or to be retransmitted), oldest
    /// first: the content of the next A-MPDU, retransmissions first as they
    /// are older.
    pub fn pending(&self) -> impl Iterator<Item = (u16, &T)> {
        self.queue.iter().filter(|e| !e.in_flight).map(|e| (e.sn, &e.item))
    }

    /// Every outstanding MPDU's item (end-of-run accounting).
    pub fn items(&self) -> impl Iterator<Item = &T> {
        self.queue.iter().map(|e| &e.item)
    }

    /// The oldest in-flight MPDU's sequence number, if any.
    pub fn first_in_flight(&self) -> Option<u16> {
        self.queue.iter().find(|e| e.in_flight).map(|e| e.sn)
    }

    /// Ask for a BlockAckReq at WinStartO before more data (an originator
    /// that answers a missed BlockAck with an explicit BlockAckReq).
    pub fn request_bar(&mut self) {
        self.bar = Some(self.win_start());
    }

    /// Whether a BlockAckReq is due (see `take_bar`).
    pub fn bar_due(&self) -> bool {
        self.bar.is_some()
    }

    /// Transmissions so far of the MPDU `sn` (0 if unknown).
    pub fn attempts(&self, sn: u16) -> u32 {
        self.queue.iter().find(|e| e.sn == sn).map_or(0, |e| e.attempts)
    }

    /// Outstanding MPDUs (in flight or waiting).
    pub fn outstanding(&self) -> usize {
        self.queue.len()
    }

    /// Mark the MPDU `sn` as transmitted now (one more attempt).
    pub fn sent(&mut self, sn: u16) {
        if let Some(e) = self.queue.iter_mut().find(|e| e.sn == sn) {
            e.attempts += 1;
            e.in_flight = true;
        }
    }

    /// A BlockAckReq the MAC must send before more data, with its starting
    /// sequence number (the recipient still waits for MPDUs that were
    /// dropped here). Taking it clears it.
    pub fn take_bar(&mut self) -> Option<u16> {
        self.bar.take()
    }

    /// A compressed BlockAck arrived: bit `i` of `bitmap` acknowledges
    /// sequence number `ssn + i`. In-flight MPDUs older than `ssn` count as
    /// acknowledged (the recipient's window has passed them, which it does
    /// only for MPDUs it received or this originator gave up on, and the
    /// latter are no longer outstanding). In-flight MPDUs in the bitmap
    /// window without their bit wait for retransmission, or are dropped at
    /// the retry limit.
    pub fn on_block_ack(&mut self, ssn: u16, bitmap: Bitmap) -> BaOutcome<T> {
        self.judge(|sn| sn_lt(sn, ssn) || bitmap.bit(sn_dist(ssn, sn)))
    }

    /// The BlockAck did not come (BlockAckTimeout, 10.25.6.4 via 10.3.2.9):
    /// every in-flight MPDU failed.
    pub fn on_timeout(&mut self) -> BaOutcome<T> {
        self.judge(|_| false)
    }

    fn judge(&mut self, acked: impl Fn(u16) -> bool) -> BaOutcome<T> {
        let mut out = BaOutcome { acked: Vec::new(), dropped: Vec::new(), to_retry: 0 };
        let before = self.win_start();
        let mut dropped_any = false;
        let mut keep = VecDeque::with_capacity(self.queue.len());
        for mut e in self.queue.drain(..) {
            if !e.in_flight {
                keep.push_back(e);
            } else if acked(e.sn) {
                out.acked.push(e.item);
            } else if self.retry_limit.reached(e.attempts) {
                dropped_any = true;
                out.dropped.push(e.item);
            } else {
                e.in_flight = false;
                out.to_retry += 1;
                keep.push_back(e);
            }
        }
        self.queue = keep;
        // Dropping MPDUs at the front moves WinStartO; the recipient learns
        // of it from a BlockAckReq (10.25.6.3).
        if dropped_any && self.win_start() != before {
            self.bar = Some(self.win_start());
        }
        out
    }
}
