#![no_main]
//! Fuzz target `gate_lines`: see `turnstile_proptests::fuzz::gate_lines`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| turnstile_proptests::fuzz::gate_lines(data));
