#![no_main]
//! Fuzz target `import_tau2`: see `turnstile_proptests::fuzz::import_tau2`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| turnstile_proptests::fuzz::import_tau2(data));
