//! placeholder: PyO3 bindings
