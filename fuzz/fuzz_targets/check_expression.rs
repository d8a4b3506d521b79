#![no_main]
//! Fuzz target `check_expression`: see `turnstile_proptests::fuzz::check_expression`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| turnstile_proptests::fuzz::check_expression(data));
