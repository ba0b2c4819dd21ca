//! Channel: propagation, SNR and frame error models.
//!
//! Layer invariants:
//! - Pure and sans-I/O: every function maps its inputs to outputs; the only
//!   randomness is an [`wifitcp_core::RngStream`] passed in (shadowing draws,
//!   Bernoulli trials), so the same seed gives the same draws.
//! - Probabilities are per transmission attempt and independent across
//!   attempts given the shadowing value.
//! - Units are in the names: `_m`, `_hz`, `_db`, `_dbm`, `_dbi`.
//!
//! Pieces:
//! - [`propagation`]: positions, Friis and log-distance path loss,
//!   log-normal shadowing, thermal noise, SNR/SINR.
//! - [`error_model`]: the 12 802.11a/b/g modes and the SNR -> BER -> frame
//!   success model ([`error_model::UnionBoundModel`]); the HT MCSs of
//!   802.11n ([`error_model::ht`], used by
//!   [`ChannelModel::ht_success_parts`]).
//! - [`fixed`]: fixed per-attempt error probabilities and SNR classes.
//! - [`model`]: the closed set [`ChannelModel`] (`Fixed`, `Snr`,
//!   `Threshold`) and [`Channel`] (model + shadowing state).
//! - [`config`]: the `[channel]` scenario table and its validation.
//! - [`presets`]: the reference papers' channels.
//! - [`moving`]: the channel with moving nodes (a frame error model).
//! - [`power`]: transmit power from the power game's equilibrium.
//! - [`fading`]: small-scale fading in time (Rayleigh and Rician by sums of
//!   sinusoids, Nakagami-m and block fading), one process per link, added
//!   to a frame's received power at its start ([`Channel::rx_power_dbm`]).
//! - [`leakage`]: adjacent-channel leakage by the transmit spectrum mask,
//!   and which channels leak into each other.

pub mod antenna;
pub mod config;
pub mod error_model;
pub mod fading;
pub mod fixed;
pub mod keys;
pub mod leakage;
pub mod model;
pub mod moving;
pub mod power;
pub mod presets;
pub mod propagation;

pub use config::{ChannelConfig, ConfigError};
pub use error_model::{ErrorModel, Mode, Preamble, UnionBoundModel};
pub use fixed::{FixedPer, FrameKind, FrameScope, SnrClass, SnrClasses};
pub use model::{Channel, ChannelModel, FrameTx, Radio, SnrChannel, ThresholdChannel};
pub use propagation::{Position, ShadowingMode};
