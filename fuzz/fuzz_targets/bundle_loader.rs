#![no_main]
//! Fuzz target `bundle_loader`: see `turnstile_proptests::fuzz::bundle_loader`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| turnstile_proptests::fuzz::bundle_loader(data));
