#![no_main]
//! Fuzz target `import_native`: see `turnstile_proptests::fuzz::import_native`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| turnstile_proptests::fuzz::import_native(data));
