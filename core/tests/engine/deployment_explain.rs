//! `explain` for Deployments (issue point 5): the data and the text of a snapshot.

use replicore::deployment::explain::{explain_deployments, explain_deployments_json};
use replicore::Time;
use serde_json::{json, Value};

fn now() -> Time {
    Time::parse("2026-11-24T01:00:00Z").unwrap().unwrap()
}

fn template(image: &str, hash: Option<&str>) -> Value {
    let mut labels = json!({"app": "web"});
    if let Some(h) = hash {
        labels["pod-template-hash"] = json!(h);
    }
    json!({"metadata": {"labels": labels},
           "spec": {"containers": [{"name": "web", "image": image}]}})
}

fn rs(name: &str, image: &str, revision: i64, replicas: i32, available: i32, minute: u32) -> Value {
    let t = template(image, Some(name));
    json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": format!("web-{name}"), "namespace": "default", "uid": format!("uid-{name}"),
            "generation": 1, "creationTimestamp": format!("2026-11-24T00:{minute:02}:00Z"),
            "labels": t["metadata"]["labels"],
            "annotations": {"deployment.kubernetes.io/revision": revision.to_string(),
                "deployment.kubernetes.io/desired-replicas": "10",
                "deployment.kubernetes.io/max-replicas": "13"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                "uid": "d-uid", "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"replicas": replicas, "selector": {"matchLabels": t["metadata"]["labels"]}, "template": t},
        "status": {"replicas": replicas, "readyReplicas": available, "availableReplicas": available,
            "observedGeneration": 1}})
}

/// Mid-rollout: the new RS at 3 (none available yet), the old one at 8 (all available),
/// Progressing since 100 s ago with a 600 s deadline.
fn snapshot() -> Value {
    json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": "web", "namespace": "default", "uid": "d-uid", "generation": 2,
            "annotations": {"deployment.kubernetes.io/revision": "2"}},
         "spec": {"replicas": 10, "selector": {"matchLabels": {"app": "web"}},
            "template": template("web:v2", None),
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "progressDeadlineSeconds": 600},
         "status": {"observedGeneration": 2, "replicas": 11, "updatedReplicas": 3,
            "availableReplicas": 8, "readyReplicas": 8, "unavailableReplicas": 3,
            "conditions": [
              {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
               "message": "Deployment has minimum availability.",
               "lastUpdateTime": "2026-11-24T00:58:20Z", "lastTransitionTime": "2026-11-24T00:58:20Z"},
              {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated",
               "message": "ReplicaSet \"web-new\" is progressing.",
               "lastUpdateTime": "2026-11-24T00:58:20Z", "lastTransitionTime": "2026-11-24T00:58:20Z"}]}},
        rs("new", "web:v2", 2, 3, 0, 58),
        rs("old", "web:v1", 1, 8, 8, 1),
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}}
    ]})
}

#[test]
fn a_rollout_in_progress_is_explained_with_its_next_step_and_deadline() {
    let list = snapshot();
    let items = list["items"].as_array().unwrap();
    let e = explain_deployments(items, now()).unwrap();
    assert_eq!(e.deployments.len(), 1);
    let d = &e.deployments[0];
    assert_eq!((d.revision, d.replicas), (Some(2), 10));
    assert_eq!(
        (d.max_surge, d.max_unavailable, d.max_pods, d.min_available),
        (3, 2, 13, 8)
    );
    let new = d.new_replica_set.as_ref().unwrap();
    assert_eq!(
        (new.name.as_str(), new.revision, new.replicas, new.available),
        ("web-new", Some(2), 3, 0)
    );
    assert_eq!(d.old_replica_sets.len(), 1);
    assert_eq!(
        (
            d.old_replica_sets[0].revision,
            d.old_replica_sets[0].available
        ),
        (Some(1), 8)
    );
    let progressing = d
        .conditions
        .iter()
        .find(|c| c.type_ == "Progressing")
        .unwrap();
    assert_eq!(progressing.deadline_left_seconds, Some(500.0));
    // Total 11 of at most 13 pods: the new RS grows by 2; the old one may not shrink
    // (8 available = R − maxUnavailable).
    let first = &d.next_sync[0];
    assert_eq!(
        (
            first.verb.as_str(),
            first.target.as_str(),
            first.rule.as_str()
        ),
        ("update", "replicasets/web-new", "D-51")
    );
    assert!(
        first
            .description
            .starts_with("scale up web-new from 3 to 5"),
        "{first:?}"
    );
    assert!(
        !d.next_sync
            .iter()
            .any(|c| c.target == "replicasets/web-old"),
        "{:?}",
        d.next_sync
    );
    assert!(
        e.text
            .contains("Deployment default/web (revision 2, RollingUpdate, 10 replicas)"),
        "{}",
        e.text
    );
    assert!(
        e.text.contains("(500s left before the progress deadline)"),
        "{}",
        e.text
    );
    assert!(
        e.text.contains("scale up web-new from 3 to 5"),
        "{}",
        e.text
    );
    // The JSON text gives the same, and the data serializes in camelCase.
    let again = explain_deployments_json(list.to_string().as_bytes(), now()).unwrap();
    assert_eq!(again, e);
    let data = serde_json::to_value(&e).unwrap();
    assert_eq!(data["deployments"][0]["maxSurge"], json!(3));
    assert_eq!(data["deployments"][0]["nextSync"][0]["rule"], json!("D-51"));
}

#[test]
fn a_finished_rollout_has_no_deadline_and_scales_the_old_rs_by_availability() {
    let mut list = snapshot();
    // The new RS at 5, all available: 13 available, old may shrink by 13 − 8 = 5.
    list["items"][1] = rs("new", "web:v2", 2, 5, 5, 58);
    let e = explain_deployments(list["items"].as_array().unwrap(), now()).unwrap();
    let d = &e.deployments[0];
    let down = d
        .next_sync
        .iter()
        .find(|c| c.target == "replicasets/web-old")
        .unwrap();
    assert_eq!(down.rule, "D-54");
    assert!(
        down.description
            .starts_with("scale down web-old from 8 to 3"),
        "{down:?}"
    );
}

#[test]
fn a_bad_deployment_names_its_item() {
    let list = json!({"items": [{"kind": "Deployment", "metadata": {"name": "x"},
        "spec": {"replicas": "three"}}]});
    let e = explain_deployments(list["items"].as_array().unwrap(), now()).unwrap_err();
    assert!(e.to_string().contains("items[0]"), "{e}");
}
