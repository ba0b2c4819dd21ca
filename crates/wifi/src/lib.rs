//! IEEE 802.11: PHY timing, channel and error models, the medium, and MAC
//! state machines.
pub mod channel;
