#![no_main]
//! Fuzz target `import_openai`: see `turnstile_proptests::fuzz::import_openai`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| turnstile_proptests::fuzz::import_openai(data));
