//! MAC state machines.
