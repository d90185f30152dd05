//! bytes → DeploymentSyncInput → the step machine to its end, with fuzzed API answers.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    replicore_fuzz::deployment_bytes(data);
});
