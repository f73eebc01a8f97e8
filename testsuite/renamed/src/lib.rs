//! Empty: this package only runs tests/renamed.rs.
