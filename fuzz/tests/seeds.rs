//! The fuzz targets' checks, run on stable over the conformance inputs they are seeded
//! with, so the checks compile and hold without a nightly toolchain.

use std::io::Read;

fn vectors(file: &str) -> Vec<serde_json::Value> {
    let path = format!(
        "{}/../tests/conformance/vectors/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let raw = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(&raw[..])
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn sync_checks_hold_on_every_recorded_sync_input() {
    let cases = vectors("sync.json.gz");
    assert!(cases.len() > 100, "the sync vectors are there");
    let mut checked = 0;
    for case in &cases {
        let bytes = serde_json::to_vec(&case["input"]).unwrap();
        checked += replicore_fuzz::sync_bytes(&bytes);
    }
    // Both outcome patterns complete for (nearly) every recorded input.
    assert!(
        checked > cases.len(),
        "{checked} completions checked for {} inputs",
        cases.len()
    );
}

#[test]
fn explain_checks_hold_on_recorded_objects_and_on_garbage() {
    for case in vectors("sync.json.gz").iter().take(50) {
        let input = &case["input"];
        let mut items = vec![input["replicaSet"].clone()];
        items.extend(input["pods"].as_array().cloned().unwrap_or_default());
        let list = serde_json::json!({"kind": "List", "items": items});
        replicore_fuzz::explain_bytes(&serde_json::to_vec(&list).unwrap());
    }
    for garbage in [
        &b""[..],
        b"{",
        b"[]",
        b"{\"items\":7}",
        b"\xff\xfe",
        b"{\"items\":[{\"kind\":\"Pod\"}]}",
    ] {
        replicore_fuzz::explain_bytes(garbage);
    }
}

#[test]
fn store_checks_hold_on_seeded_sequences() {
    use arbitrary::{Arbitrary, Unstructured};
    let mut checked = 0;
    for seed in 1..=300u64 {
        // xorshift64: deterministic bytes, a different operation sequence per seed.
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let bytes: Vec<u8> = (0..4096)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        let mut u = Unstructured::new(&bytes);
        let mut ops = Vec::new();
        while !u.is_empty() && ops.len() < 200 {
            ops.push(replicore_fuzz::Op::arbitrary(&mut u).expect("any bytes make an operation"));
        }
        checked += replicore_fuzz::store_ops(&ops);
    }
    assert!(checked >= 100, "only {checked} Store plans were checked");
}

#[test]
fn deployment_checks_hold_on_every_recorded_deployment_sync() {
    let cases = vectors("deployment/deployment-sync.json.gz");
    assert_eq!(cases.len(), 500, "the deployment-sync vectors are there");
    let mut synced = 0;
    for case in &cases {
        let bytes = serde_json::to_vec(&case["input"]).unwrap();
        if replicore_fuzz::deployment_bytes(&bytes).is_some() {
            synced += 1;
        }
    }
    assert_eq!(synced, cases.len(), "every recorded input runs to its end");
}
