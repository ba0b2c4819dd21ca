//! The recipient of a BlockAck agreement: its scoreboard (what the next
//! compressed BlockAck reports, 10.25.6.3) and its receive reordering
//! buffer (10.25.6.6), which passes MSDUs up in sequence-number order.
//!
//! Rules, with WinStartB the next sequence number to pass up, WinSizeB the
//! buffer size and WinEndB = WinStartB + WinSizeB - 1:
//! - an MPDU with WinStartB <= SN <= WinEndB is buffered (a copy already
//!   buffered is a duplicate and discarded), then every buffered MSDU from
//!   WinStartB on is passed up until the first missing one;
//! - an MPDU with SN beyond WinEndB (and less than WinStartB + 2^11) moves
//!   the window so that it ends at SN: buffered MSDUs that fall before the
//!   new WinStartB are passed up in order (holes are given up on), then the
//!   rule above applies;
//! - an MPDU older than WinStartB is a duplicate and discarded;
//! - a BlockAckReq with SSN beyond WinStartB passes up every buffered MSDU
//!   before SSN, sets WinStartB to SSN, then passes up from there.
//!
//! The scoreboard uses the same window (a full-state recipient): the
//! compressed BlockAck starts at WinStartB and bit i reports SN
//! WinStartB + i; MSDUs already passed up lie before it.
use super::{sn_add, sn_dist, sn_lt, Bitmap, MAX_WINDOW, SN_MODULO};

#[derive(Debug)]
pub struct Recipient<T> {
    win_start: u16,
    win_size: u16,
    /// A ring: slot (head + i) % win_size holds SN win_start + i.
    slots: Vec<Option<T>>,
    head: usize,
    /// MPDUs discarded as duplicates.
    pub duplicates: u64,
    /// Sequence numbers given up on (passed over without an MSDU).
    pub skipped: u64,
}

impl<T> Recipient<T> {
    pub fn new(ssn: u16, win_size: u16) -> Recipient<T> {
        assert!((1..=MAX_WINDOW).contains(&win_size));
        let slots = (0..win_size).map(|_| None).collect();
        Recipient { win_start: ssn % SN_MODULO, win_size, slots, head: 0, duplicates: 0, skipped: 0 }
    }

    /// WinStartB: the next sequence number to pass up.
    pub fn win_start(&self) -> u16 {
        self.win_start
    }

    /// An MPDU `sn` received intact; returns the MSDUs passed up, in order.
    pub fn on_mpdu(&mut self, sn: u16, item: T) -> Vec<T> {
        let mut up = Vec::new();
        let d = sn_dist(self.win_start, sn);
        if !sn_lt(sn, self.win_start) && d >= self.win_size {
            // Beyond WinEndB: move the window to end at sn.
            self.advance(d - self.win_size + 1, &mut up);
        }
        if sn_lt(sn, self.win_start) {
            self.duplicates += 1;
            return up;
        }
        let i = self.slot(sn_dist(self.win_start, sn));
        if self.slots[i].is_some() {
            self.duplicates += 1;
        } else {
            self.slots[i] = Some(item);
        }
        self.release_in_order(&mut up);
        up
    }

    /// A BlockAckReq with starting sequence number `ssn`.
    pub fn on_bar(&mut self, ssn: u16) -> Vec<T> {
        let mut up = Vec::new();
        if sn_lt(self.win_start, ssn) {
            self.advance(sn_dist(self.win_start, ssn), &mut up);
        }
        self.release_in_order(&mut up);
        up
    }

    /// The compressed BlockAck to send now: (starting sequence number,
    /// bitmap).
    pub fn block_ack(&self) -> (u16, Bitmap) {
        let mut bits = Bitmap::default();
        for i in (0..self.win_size).filter(|&i| self.slots[self.slot(i)].is_some()) {
            bits.set(i);
        }
        (self.win_start, bits)
    }

    /// The MSDUs held for reordering (end-of-run accounting).
    pub fn items(&self) -> impl Iterator<Item = &T> {
        self.slots.iter().flatten()
    }

    /// MSDUs held for reordering.
    pub fn buffered(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }

    /// Move WinStartB forward by `n`, passing up what was buffered.
    fn advance(&mut self, n: u16, up: &mut Vec<T>) {
        for _ in 0..n {
            match self.shift() {
                Some(x) => up.push(x),
                None => self.skipped += 1,
            }
        }
    }

    fn release_in_order(&mut self, up: &mut Vec<T>) {
        while self.slots[self.head].is_some() {
            up.extend(self.shift());
        }
    }

    /// The slot of SN win_start + i.
    fn slot(&self, i: u16) -> usize {
        (self.head + usize::from(i)) % self.slots.len()
    }

    /// Empty the slot of WinStartB (returning its MSDU) and move the window
    /// by one.
    fn shift(&mut self) -> Option<T> {
        let x = self.slots[self.head].take();
        self.head = (self.head + 1) % self.slots.len();
        self.win_start = sn_add(self.win_start, 1);
        x
    }
}
