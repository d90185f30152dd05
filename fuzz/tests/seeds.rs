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

/// Found by the fuzzer: a pod Ready since 2206 with `minReadySeconds` set asks for a requeue
/// 180 years ahead, whose nanoseconds an `f64` of seconds cannot carry exactly; the
/// completion still reads back from its JSON (to that precision).
#[test]
fn sync_checks_hold_when_a_requeue_is_centuries_ahead() {
    let mut far = 0;
    for case in vectors("sync.json.gz") {
        let mut input = case["input"].clone();
        input["replicaSet"]["spec"]["minReadySeconds"] = 300.into();
        let Some(pods) = input["pods"].as_array_mut() else {
            continue;
        };
        for pod in pods {
            if let Some(conditions) = pod["status"]["conditions"].as_array_mut() {
                for c in conditions.iter_mut().filter(|c| c["type"] == "Ready") {
                    c["lastTransitionTime"] = "2206-11-18T12:41:46.123456789Z".into();
                }
            }
        }
        let bytes = serde_json::to_vec(&input).unwrap();
        replicore_fuzz::sync_bytes(&bytes);
        let Ok(sync) = replicore::SyncInput::from_json(&bytes) else {
            continue;
        };
        let config = replicore::Config::default();
        let Ok(plan) = replicore::plan(&sync, &config) else {
            continue;
        };
        let outcome =
            replicore_fuzz::outcome_for(&plan, replicore_fuzz::Pattern::AllSucceed, &sync.owner);
        if let Ok(done) = replicore::complete(&plan, &outcome) {
            if let replicore::Requeue::After { after } = done.requeue {
                far += usize::from(after.as_nanos() > 1 << 60);
            }
        }
    }
    assert!(
        far > 10,
        "only {far} syncs asked for a requeue centuries ahead"
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

/// The sync documents of the HPA vectors: each `hpa-sync` input, and the first three
/// steps of each `hpa-trace` as the runner makes them (the world beside the input), as
/// `scripts/fuzz.sh` seeds the `hpa_sync` target.
fn hpa_documents() -> Vec<serde_json::Value> {
    let mut docs: Vec<serde_json::Value> = vectors("hpa/hpa-sync.json.gz")
        .into_iter()
        .map(|c| c["input"].clone())
        .collect();
    for case in vectors("hpa/hpa-trace.json.gz") {
        let shared = &case["input"];
        for step in shared["steps"].as_array().into_iter().flatten().take(3) {
            docs.push(serde_json::json!({
                "now": step["now"], "featureGates": shared["featureGates"],
                "config": shared["config"], "key": shared["key"], "hpa": step["hpa"],
                "scale": step["scale"], "pods": step["pods"], "metrics": step["metrics"],
            }));
        }
    }
    docs
}

/// xorshift64 bytes: a deterministic script per seed.
fn script(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

#[test]
fn hpa_checks_hold_on_every_recorded_sync_and_on_scripted_answers() {
    let docs = hpa_documents();
    assert!(docs.len() > 500, "the HPA vectors are there");
    let (mut syncs, mut refused) = (0, 0);
    for (i, doc) in docs.iter().enumerate() {
        let bytes = serde_json::to_vec(doc).unwrap();
        // The recorded world answers every call.
        let run = replicore_fuzz::hpa::hpa_bytes(&bytes);
        assert!(run.parsed, "vector document {i} parses");
        assert_eq!(
            run.syncs, 2,
            "vector document {i}: the sync and the next one"
        );
        syncs += run.syncs;
        // Then scripted answers: every kind, wrong kinds and wild values included.
        for seed in 0..2u64 {
            let mut scripted = bytes.clone();
            scripted.push(0);
            scripted.extend(script(i as u64 * 2 + seed + 1, 256));
            let run = replicore_fuzz::hpa::hpa_bytes(&scripted);
            assert!(run.parsed && run.syncs == 2, "document {i}, seed {seed}");
            refused += run.refused;
        }
    }
    assert!(syncs >= 2 * docs.len());
    assert!(refused > 100, "only {refused} answers were refused");
}

#[test]
fn hpa_refusals_name_a_path_whatever_the_bytes() {
    let doc = serde_json::to_vec(&hpa_documents()[0]).unwrap();
    let garbage: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"{".to_vec(),
        b"[]".to_vec(),
        b"null".to_vec(),
        b"\xff\xfe".to_vec(),
        b"{\"now\": 5}".to_vec(),
        b"{\"now\": \"2026-11-27T12:00:00Z\", \"hpa\": []}".to_vec(),
        b"{\"input\": {\"now\": \"2026-11-27T12:00:00Z\", \"hpa\": {}}, \"answers\": [{\"answer\": \"ok\"}]}".to_vec(),
        format!("{}{}", "[".repeat(200), "]".repeat(200)).into_bytes(),
        doc[..doc.len() / 2].to_vec(),
        // Halves of a script after a good document.
        [&doc[..], b"\0", &[0xff; 64]].concat(),
        [&doc[..], b"\0", &[14, b'{', b'}']].concat(),
    ];
    for g in &garbage {
        replicore_fuzz::hpa::hpa_bytes(g);
    }
    // A state the engine gave resumes through the same entry.
    let state = serde_json::json!({"input": hpa_documents()[0], "answers": []});
    let run = replicore_fuzz::hpa::hpa_bytes(&serde_json::to_vec(&state).unwrap());
    assert!(run.resumed, "a plain state resumes");
}
