#![no_main]
//! Fuzz target `import_taubench`: see `turnstile_proptests::fuzz::import_taubench`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| turnstile_proptests::fuzz::import_taubench(data));
