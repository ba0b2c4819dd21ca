//! The receive cache of 10.3.2.14: outside a BlockAck agreement a receiver
//! keeps, per transmitter, the sequence number of the last MPDU it
//! received; a retried MPDU (Retry subfield 1) with the same sequence
//! number is a duplicate, acknowledged but not delivered again.
use wifitcp_core::PacketId;

/// What the cache says of a received MPDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxVerdict {
    /// Deliver it.
    New,
    /// A retransmission of the MPDU received last: discard.
    Duplicate,
    /// A new MSDU whose first attempt failed and whose sequence number,
    /// after the 12-bit counter wrapped, equals the last one received from
    /// this transmitter: the standard's receiver cannot tell and discards
    /// it like a duplicate (ns-3 does the same); the simulator, which knows
    /// the packets' identities, reports it lost.
    FalseDuplicate,
}

/// A transmitter's last MPDU received, in one word: its sequence number
/// (12 bits, 9.2.4.4.2) in the low bits and its packet's id plus one above
/// them (0: nothing received yet). The id keeps its low 52 bits, which
/// tell two packets apart in any run of fewer than 2^52 packets (at a
/// hundred million packets a second, over a year of simulated time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Latest(u64);

impl Latest {
    const SEQ_BITS: u32 = 12;

    fn new(seq: u16, id: PacketId) -> Latest {
        debug_assert!(seq < 1 << Self::SEQ_BITS, "a 12-bit sequence number");
        Latest((id.0.wrapping_add(1) << Self::SEQ_BITS) | seq as u64)
    }

    /// The sequence number, or `None` before the first reception.
    fn seq(self) -> Option<u16> {
        (self.0 != 0).then_some((self.0 & ((1 << Self::SEQ_BITS) - 1)) as u16)
    }
}

/// Per transmitter (indexed by its dense address): the last sequence
/// number received, with the id of the packet it carried (simulator
/// knowledge, used only to tell false duplicates).
#[derive(Clone, Debug, Default)]
pub struct RxCache {
    /// (Boxed, made at the first reception: one word in every MAC, not a
    /// `Vec`'s three; an entry is one word, 8 bytes for each transmitter
    /// up to the highest heard, an AP's table in a cell of thousands.)
    #[allow(clippy::box_collection)]
    last: Option<Box<Vec<Latest>>>,
}

impl RxCache {
    /// Record MPDU `seq` (Retry bit `retry`, carrying packet `id`) from
    /// transmitter `ta` and say what to do with it.
    #[inline]
    pub fn receive(&mut self, ta: usize, seq: u16, retry: bool, id: PacketId) -> RxVerdict {
        let last = self.last.get_or_insert_with(Box::default);
        if ta >= last.len() {
            last.resize(ta + 1, Latest::default());
        }
        let new = Latest::new(seq, id);
        let old = std::mem::replace(&mut last[ta], new);
        match old.seq() {
            Some(s) if retry && s == seq => {
                if old == new {
                    RxVerdict::Duplicate
                } else {
                    RxVerdict::FalseDuplicate
                }
            }
            _ => RxVerdict::New,
        }
    }
}
