//! Empty: this package only runs ../tests/ui.rs and ../tests/expand.rs as edition 2024.
