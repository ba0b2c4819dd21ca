//! IEEE 802.11: PHY timing, channel and error models, and the MAC state
//! machines (sans-I/O: they take `now` and inputs, return actions and their
//! next wake-up time; the simulator's medium connects them).
pub mod channel;
pub mod mac;
pub mod medium;
pub mod mobility;
pub mod phy;
pub mod rate;
