//! bytes → explain (`kubectl get rs,pods -o json` as the CLI reads it).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| replicore_fuzz::explain_bytes(data));
