//! bytes → SyncInput → plan → complete, with outcomes derived from the plan.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    replicore_fuzz::sync_bytes(data);
});
