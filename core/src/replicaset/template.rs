//! The pod a create sends (`GetPodFromTemplate`, §9a): the template's labels, annotations
//! and finalizers, `generateName`, the controller reference, and the template's spec.

use crate::config::OwnerKind;
use crate::model::ReplicaSet;
use crate::selector::is_dns1123_subdomain;

/// `getPodsPrefix`: `"<owner>-"`, or `"<owner>"` when the dashed prefix would not be a
/// valid pod-name prefix.
pub fn generate_name(owner_name: &str) -> String {
    let dashed = format!("{owner_name}-");
    // ValidatePodName(prefix, true) masks the trailing dash before checking.
    let masked = format!("{owner_name}a");
    if is_dns1123_subdomain(&masked) {
        dashed
    } else {
        owner_name.to_owned()
    }
}

/// Whether creates can succeed at all: upstream refuses a pod without labels
/// ("unable to create pods, no labels") before any API call.
pub fn has_labels(owner: &ReplicaSet) -> bool {
    owner.spec.template.labels().is_some_and(|l| !l.is_empty())
}

/// The pod object to POST to `/api/v1/namespaces/{namespace}/pods`.
pub fn pod_from_template(owner: &ReplicaSet, kind: &OwnerKind) -> serde_json::Value {
    let meta = owner.spec.template.metadata.clone().unwrap_or_default();
    serde_json::json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "namespace": owner.metadata.namespace,
            "generateName": generate_name(&owner.metadata.name),
            "labels": meta.labels.unwrap_or_default(),
            "annotations": meta.annotations.unwrap_or_default(),
            "finalizers": meta.finalizers,
            "ownerReferences": [{
                "apiVersion": kind.api_version,
                "kind": kind.kind,
                "name": owner.metadata.name,
                "uid": owner.metadata.uid,
                "controller": true,
                "blockOwnerDeletion": true,
            }],
        },
        "spec": owner.spec.template.spec,
    })
}
