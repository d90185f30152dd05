//! `cargo test` runs every public conformance vector through the engine.

use std::path::Path;

fn vectors() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/conformance/vectors"))
}

fn run(kind: &str, expected_cases: usize) {
    let path = replicore_tests::vector_file(vectors(), kind).expect("vector file present");
    let cases = replicore_tests::load(&path).expect("vector file readable");
    assert_eq!(cases.len(), expected_cases, "{kind}: number of cases");
    let report = replicore_tests::run_kind(kind, &cases);
    let shown: Vec<String> = report
        .failures
        .iter()
        .take(5)
        .map(|f| f.to_string())
        .collect();
    assert!(
        report.failures.is_empty(),
        "{kind}: {} of {} cases failed; first:\n{}",
        report.failures.len(),
        cases.len(),
        shown.join("\n")
    );
    assert_eq!(report.passed, expected_cases);
}

#[test]
fn rank_vectors() {
    run("rank", 600);
}

#[test]
fn sync_vectors() {
    run("sync", 600);
}

#[test]
fn status_vectors() {
    run("status", 300);
}

#[test]
fn selector_vectors() {
    run("selector", 300);
}

#[test]
fn slowstart_vectors() {
    run("slowstart", 60);
}

#[test]
fn expectations_vectors() {
    run("expectations", 80);
}

#[test]
fn deployment_hash_vectors() {
    run("deployment-hash", 300);
}

/// A wrong expected hash is caught, and the report points into the dump.
#[test]
fn judge_rejects_a_wrong_hash() {
    let path = replicore_tests::vector_file(vectors(), "deployment-hash").expect("vector file");
    let mut cases = replicore_tests::load(&path).expect("readable");
    let case = cases.get_mut(0).expect("a case");
    case["expect"]["hash"] = serde_json::json!("bcdfghjkl");
    let failure = replicore_tests::judge("deployment-hash", case).expect_err("judged wrong");
    assert!(failure.field.contains("dumps equal"), "{failure}");
    case["expect"]["dump"] =
        serde_json::json!("(v1.PodTemplateSpec){ObjectMeta:(v1.ObjectMeta){Name:(string)x");
    let failure = replicore_tests::judge("deployment-hash", case).expect_err("judged wrong");
    assert!(
        failure.field.contains("dump differs at byte 61"),
        "{failure}"
    );
}

/// The judge itself must be able to fail: a deliberately wrong engine answer is caught.
#[test]
fn judge_rejects_a_wrong_answer() {
    let path = replicore_tests::vector_file(vectors(), "slowstart").expect("vector file");
    let mut cases = replicore_tests::load(&path).expect("readable");
    let case = cases.get_mut(0).expect("a case");
    case["expect"]["calls"] = serde_json::json!(999);
    assert!(replicore_tests::judge("slowstart", case).is_err());

    let path = replicore_tests::vector_file(vectors(), "rank").expect("vector file");
    let cases = replicore_tests::load(&path).expect("readable");
    // Reverse the rank groups of a case with several groups: the engine's order, which
    // follows the real groups, must now be judged wrong.
    let mut case = cases
        .into_iter()
        .find(|c| {
            c["expect"]["rankGroups"]
                .as_array()
                .is_some_and(|g| g.len() > 3)
        })
        .expect("a rank case with several groups");
    let groups = case["expect"]["rankGroups"].as_array_mut().expect("groups");
    groups.reverse();
    assert!(replicore_tests::judge("rank", &case).is_err());
}

#[test]
fn deployment_sync_vectors() {
    run("deployment-sync", 500);
}

/// The deployment-sync judge must be able to fail: a changed count, event, action or
/// error flag in `expect` is caught, with the case, the action index and the field.
#[test]
fn deployment_sync_judge_rejects_wrong_answers() {
    let path = replicore_tests::vector_file(vectors(), "deployment-sync").expect("vector file");
    let cases = replicore_tests::load(&path).expect("readable");
    let case = cases
        .iter()
        .find(|c| {
            c["expect"]["actions"]
                .as_array()
                .is_some_and(|a| a.iter().any(|x| x["replicaSet"]["replicas"].is_number()))
                && c["alternatives"].is_null()
        })
        .expect("a case with an RS write");
    assert!(replicore_tests::judge("deployment-sync", case).is_ok());
    let at = case["expect"]["actions"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .position(|x| x["replicaSet"]["replicas"].is_number())
        })
        .expect("an RS write");

    let mut wrong = case.clone();
    let n = wrong["expect"]["actions"][at]["replicaSet"]["replicas"]
        .as_i64()
        .unwrap_or(0);
    wrong["expect"]["actions"][at]["replicaSet"]["replicas"] = serde_json::json!(n + 1);
    let f = replicore_tests::judge("deployment-sync", &wrong).expect_err("wrong replicas");
    assert_eq!(f.field, format!("actions[{at}].replicaSet.replicas"), "{f}");
    assert_eq!(f.case, case["name"].as_str().unwrap_or(""));

    let mut wrong = case.clone();
    wrong["expect"]["error"] =
        serde_json::json!(!case["expect"]["error"].as_bool().unwrap_or(false));
    assert!(replicore_tests::judge("deployment-sync", &wrong).is_err());

    let mut wrong = case.clone();
    wrong["expect"]["events"] = serde_json::json!([]);
    if case["expect"]["events"] != serde_json::json!([]) {
        assert!(replicore_tests::judge("deployment-sync", &wrong).is_err());
    }

    let mut wrong = case.clone();
    wrong["expect"]["newReplicaSetHash"] = serde_json::json!("xxxxxxxxx");
    assert!(replicore_tests::judge("deployment-sync", &wrong).is_err());
}

#[test]
fn hpa_replicas_vectors() {
    run("hpa-replicas", 400);
}

#[test]
fn hpa_sync_vectors() {
    run("hpa-sync", 500);
}

#[test]
fn hpa_trace_vectors() {
    run("hpa-trace", 60);
}
