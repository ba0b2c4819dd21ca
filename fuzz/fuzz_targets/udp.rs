//! Fuzz target: wifitcp_wire::codec::selfcheck::udp (parse, re-emit, compare).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| wifitcp_wire::codec::selfcheck::udp(data));
