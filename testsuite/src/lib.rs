//! Empty: this package only holds tests and benchmarks (see `tests/` and `benches/`).
