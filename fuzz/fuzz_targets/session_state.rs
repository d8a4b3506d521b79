#![no_main]
//! Fuzz target `session_state`: see `turnstile_proptests::fuzz::session_state`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| turnstile_proptests::fuzz::session_state(data));
