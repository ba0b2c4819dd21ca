//! Channel: propagation, SNR and frame error models.
pub mod error_model;
pub mod fixed;
pub mod propagation;
