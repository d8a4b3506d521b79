#![no_main]
//! Fuzz target `audit_reader`: see `turnstile_proptests::fuzz::audit_reader`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| turnstile_proptests::fuzz::audit_reader(data));
