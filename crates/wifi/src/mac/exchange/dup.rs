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

/// A transmitter's last sequence number received, with its packet's id.
type Latest = (u16, PacketId);

/// Per transmitter (indexed by its dense address): the last sequence
/// number received, with the id of the packet it carried (simulator
/// knowledge, used only to tell false duplicates).
#[derive(Clone, Debug, Default)]
pub struct RxCache {
    /// (Boxed, made at the first reception: one word in every MAC, not a
    /// `Vec`'s three.)
    #[allow(clippy::box_collection)]
    last: Option<Box<Vec<Option<Latest>>>>,
}

impl RxCache {
    /// Record MPDU `seq` (Retry bit `retry`, carrying packet `id`) from
    /// transmitter `ta` and say what to do with it.
    #[inline]
    pub fn receive(&mut self, ta: usize, seq: u16, retry: bool, id: PacketId) -> RxVerdict {
        let last = self.last.get_or_insert_with(Box::default);
        if ta >= last.len() {
            last.resize(ta + 1, None);
        }
        let cached = last[ta].replace((seq, id));
        match cached {
            Some((s, old)) if retry && s == seq => {
                if old == id {
                    RxVerdict::Duplicate
                } else {
                    RxVerdict::FalseDuplicate
                }
            }
            _ => RxVerdict::New,
        }
    }
}
