//! Helpers the integration tests share: one run of a scenario given as
//! JSON (seed 1) and its result, or the configuration error it ends with.
#![allow(dead_code)] // each test crate uses some of them

use serde_json::Value;
use wifitcp_sim::api::run_json;

/// The result of scenario `s`, seed 1.
pub fn run(s: &Value) -> Value {
    serde_json::from_str(&run_json(&s.to_string(), 1).expect("run")).unwrap()
}

/// The error scenario `s` is refused with, as text.
pub fn err(s: &Value) -> String {
    run_json(&s.to_string(), 1).expect_err("a configuration error").to_string()
}
