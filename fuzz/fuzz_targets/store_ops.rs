//! Structured Store sequences: upsert and delete owners and pods, plan and complete.
#![no_main]
libfuzzer_sys::fuzz_target!(|ops: Vec<replicore_fuzz::Op>| {
    replicore_fuzz::store_ops(&ops);
});
