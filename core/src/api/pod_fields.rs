//! Which fields of a pod the engine reads: the shape of [`Pod`](crate::Pod) on the wire.
//!
//! A pod from the API server carries about four times more JSON than the engine reads
//! (`managedFields`, the containers' specs, volumes, IPs). The parser skips the rest, but
//! a host that must first write its objects as JSON (a JavaScript host's
//! `JSON.stringify`) pays for every byte. [`POD_FIELDS`] lets such a host write only these
//! fields; the engine decides exactly as it would from the whole object, and reports a bad
//! value at the same path. A test checks the tree against the model in both directions.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// A node of the field tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fields {
    /// The value is read whole (a string, number, map of labels, list of strings, ...).
    Value,
    /// An object of which only these fields are read.
    Object(&'static [(&'static str, Fields)]),
    /// A list whose items have this shape.
    List(&'static Fields),
}

use Fields::{List, Object, Value};

const OWNER_REFERENCE: Fields = Object(&[
    ("apiVersion", Value),
    ("kind", Value),
    ("name", Value),
    ("uid", Value),
    ("controller", Value),
    ("blockOwnerDeletion", Value),
]);

const METADATA: Fields = Object(&[
    ("name", Value),
    ("generateName", Value),
    ("namespace", Value),
    ("uid", Value),
    ("resourceVersion", Value),
    ("generation", Value),
    ("creationTimestamp", Value),
    ("deletionTimestamp", Value),
    ("deletionGracePeriodSeconds", Value),
    ("labels", Value),
    ("annotations", Value),
    ("ownerReferences", List(&OWNER_REFERENCE)),
    ("finalizers", Value),
]);

const CONTAINER: Fields = Object(&[("name", Value), ("restartPolicy", Value)]);

const CONTAINER_STATUS: Fields = Object(&[("name", Value), ("restartCount", Value)]);

const CONDITION: Fields = Object(&[
    ("type", Value),
    ("status", Value),
    ("lastTransitionTime", Value),
]);

/// The fields of a pod the engine reads.
pub const POD_FIELDS: Fields = Object(&[
    ("metadata", METADATA),
    (
        "spec",
        Object(&[("nodeName", Value), ("initContainers", List(&CONTAINER))]),
    ),
    (
        "status",
        Object(&[
            ("phase", Value),
            ("conditions", List(&CONDITION)),
            ("containerStatuses", List(&CONTAINER_STATUS)),
            ("initContainerStatuses", List(&CONTAINER_STATUS)),
        ]),
    ),
]);

impl Fields {
    /// `value` with only the fields of this tree (what a host that keeps them sends).
    pub fn keep(&self, value: &serde_json::Value) -> serde_json::Value {
        match (self, value) {
            (Object(fields), serde_json::Value::Object(object)) => {
                let mut kept = serde_json::Map::new();
                kept.extend(fields.iter().filter_map(|(name, shape)| {
                    let v = object.get(*name)?;
                    Some(((*name).to_owned(), shape.keep(v)))
                }));
                serde_json::Value::Object(kept)
            }
            (List(item), serde_json::Value::Array(items)) => {
                serde_json::Value::Array(items.iter().map(|v| item.keep(v)).collect())
            }
            _ => value.clone(),
        }
    }
}

/// As a JSON-like tree: `true` for [`Fields::Value`], an object of the fields for
/// [`Fields::Object`], a one-item array of the item shape for [`Fields::List`].
impl Serialize for Fields {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value => serializer.serialize_bool(true),
            Object(fields) => {
                let mut map = serializer.serialize_map(Some(fields.len()))?;
                for (name, shape) in fields.iter() {
                    map.serialize_entry(name, shape)?;
                }
                map.end()
            }
            List(item) => {
                let mut seq = serializer.serialize_seq(Some(1))?;
                seq.serialize_element(item)?;
                seq.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        Container, ContainerStatus, ObjectMeta, OwnerReference, Pod, PodCondition, PodSpec,
        PodStatus,
    };
    use crate::Time;
    use serde_json::json;

    /// A pod with every field of the model set. Written without `..Default::default()`:
    /// a field added to the model fails to compile here until it is set (and then the
    /// tests below require it in `POD_FIELDS`).
    fn every_field() -> Pod {
        let t = Time::parse("2026-11-21T04:40:12Z").ok().flatten();
        let status = ContainerStatus {
            name: "c".into(),
            restart_count: 1,
        };
        Pod {
            metadata: ObjectMeta {
                name: "p".into(),
                generate_name: Some("p-".into()),
                namespace: "ns".into(),
                uid: "u".into(),
                resource_version: Some("1".into()),
                generation: Some(1),
                creation_timestamp: t,
                deletion_timestamp: t,
                deletion_grace_period_seconds: Some(30),
                labels: Some([("a".to_owned(), "b".to_owned())].into()),
                annotations: Some([("a".to_owned(), "b".to_owned())].into()),
                owner_references: vec![OwnerReference {
                    api_version: "apps/v1".into(),
                    kind: "ReplicaSet".into(),
                    name: "rs".into(),
                    uid: "r".into(),
                    controller: Some(true),
                    block_owner_deletion: Some(true),
                }],
                finalizers: vec!["f".into()],
            },
            spec: PodSpec {
                node_name: Some("n".into()),
                init_containers: vec![Container {
                    name: "i".into(),
                    restart_policy: Some("Always".into()),
                }],
            },
            status: PodStatus {
                phase: Some("Running".into()),
                conditions: vec![PodCondition {
                    type_: "Ready".into(),
                    status: "True".into(),
                    last_transition_time: t,
                }],
                container_statuses: vec![status.clone()],
                init_container_statuses: vec![status],
            },
        }
    }

    #[test]
    fn the_tree_is_exactly_the_fields_the_model_reads() {
        let written = serde_json::to_value(every_field()).unwrap_or_default();
        // Nothing the model reads is left out...
        assert_eq!(POD_FIELDS.keep(&written), written);
        // ...and nothing is named that the model does not read: every field of the tree
        // is present in the pod that has every field.
        fn all_present(value: &serde_json::Value, shape: Fields, at: &str) {
            match shape {
                Value => {}
                Object(fields) => {
                    for (name, shape) in fields {
                        let v = value.get(*name);
                        assert!(v.is_some(), "{at}.{name} is not a field of the model");
                        all_present(v.unwrap_or(&serde_json::Value::Null), *shape, name);
                    }
                }
                List(item) => {
                    let first = value.get(0);
                    assert!(first.is_some(), "{at}: empty list");
                    all_present(first.unwrap_or(&serde_json::Value::Null), *item, at);
                }
            }
        }
        all_present(&written, POD_FIELDS, "pod");
    }

    #[test]
    fn a_pruned_pod_parses_to_the_same_pod_and_fails_at_the_same_path() {
        let full = json!({
            "metadata": {"name": "p", "namespace": "ns", "uid": "u",
                         "managedFields": [{"manager": "kubelet", "fieldsV1": {"f:x": {}}}],
                         "labels": {"app": "web"},
                         "ownerReferences": [{"uid": "r", "controller": true, "extra": 1}]},
            "spec": {"containers": [{"name": "c", "image": "i"}], "nodeName": "n"},
            "status": {"phase": "Running", "podIP": "10.0.0.1",
                       "conditions": [{"type": "Ready", "status": "True", "reason": "x"}]}
        });
        let pruned = POD_FIELDS.keep(&full);
        assert!(pruned.to_string().len() < full.to_string().len());
        let a: Pod = crate::input::from_value(full.clone()).unwrap_or_default();
        let b: Pod = crate::input::from_value(pruned).unwrap_or_default();
        assert_eq!(a, b);
        assert_eq!(a.node_name(), "n");

        let mut bad = full;
        bad["status"]["conditions"][0]["status"] = json!(7);
        let e1 = crate::input::from_value::<Pod>(bad.clone()).err();
        let e2 = crate::input::from_value::<Pod>(POD_FIELDS.keep(&bad)).err();
        assert!(e1.is_some());
        assert_eq!(e1.map(|e| e.to_string()), e2.map(|e| e.to_string()));
    }

    #[test]
    fn serializes_as_a_json_tree() {
        let tree = serde_json::to_value(POD_FIELDS).unwrap_or_default();
        assert_eq!(tree["metadata"]["labels"], json!(true));
        assert_eq!(tree["metadata"]["ownerReferences"][0]["uid"], json!(true));
        assert_eq!(tree["status"]["conditions"][0]["type"], json!(true));
        assert_eq!(tree["spec"].as_object().map(|o| o.len()), Some(2));
    }
}
