//! Typed indices into arenas. Each is a plain `u32` newtype so ids of
//! different kinds cannot be confused.
use serde::{Deserialize, Serialize};

macro_rules! typed_id {
    ($($(#[$m:meta])* $name:ident),* $(,)?) => {$(
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default, Serialize, Deserialize)]
        pub struct $name(pub u32);
        impl $name {
            pub const fn idx(self) -> usize { self.0 as usize }
        }
        impl From<usize> for $name {
            fn from(i: usize) -> Self { $name(u32::try_from(i).expect("id overflow")) }
        }
    )*};
}

typed_id!(
    /// A node (station, AP, router, server).
    NodeId,
    /// A network interface (wireless device or wired port).
    IfaceId,
    /// A traffic flow (one UDP source or one TCP connection).
    FlowId,
    /// A wired point-to-point link.
    LinkId,
);

/// A packet's unique id within a run (64-bit: long runs create many).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default, Serialize, Deserialize)]
pub struct PacketId(pub u64);
