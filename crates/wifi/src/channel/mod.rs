//! Channel: propagation, SNR and frame error models.
