//! bytes → HpaSyncInput (and HpaSyncState) → the HPA step machine to its end, with
//! answers of every kind decoded from the bytes after the first NUL.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    replicore_fuzz::hpa::hpa_bytes(data);
});
