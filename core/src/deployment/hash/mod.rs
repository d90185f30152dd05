//! The `pod-template-hash` label value, exactly as upstream computes it
//! (`controller.ComputeHash`; DEPLOYMENT.md, kind `deployment-hash`).
//!
//! Upstream decodes the template JSON into the Go value `v1.PodTemplateSpec`, prints that
//! value with go-spew (`dump.ForHash`: `%#v`, map keys sorted, methods disabled, no
//! pointer addresses), feeds the text to 32-bit FNV-1a, then, when the Deployment has a
//! `collisionCount`, 8 more bytes (the count as u32 little-endian and four zero bytes),
//! and writes the sum in decimal with every digit replaced from a "safe" alphabet.
//!
//! This module writes the same text without a Go value: it walks the JSON along the type
//! layout in `layout.rs`, deciding for each Go field what encoding/json would have
//! put there (absent, null, a value, or an error) and printing it the way go-spew prints
//! that Go type. What encoding/json does and this walk mirrors:
//!
//! * object members match fields by JSON name, exactly or case-insensitively; members
//!   naming no field are ignored; embedded (`inline`) structs read the same object;
//! * `null` leaves a string, number, bool or struct at its zero value and makes a
//!   pointer, slice or map nil; `[]` and `{}` make empty (non-nil) slices and maps;
//! * a JSON value of the wrong type for a field is an error (upstream's decode fails).
//!
//! Values whose Go rendering this walk cannot reproduce exactly are errors rather than
//! wrong hashes: quantities that `ParseQuantity` keeps as `inf.Dec` (more than 18 digits,
//! below nano, binary values too large for the fast path), quantities given as JSON
//! floats (the original text is lost), non-null timestamps (they decode to the
//! controller's local time zone, whose `time.Location` go-spew prints in full), non-null
//! `managedFields[].fieldsV1` (raw bytes of the original text), and several members that
//! set the same field with different values (encoding/json keeps the last one in document
//! order, which a parsed JSON value no longer knows).

//!
//! The parts: this file (the entry points, FNV-1a and the safe encoding), `spew.rs` (the
//! walk and go-spew's printing), `layout.rs` (the Go types as data), `quantity.rs`
//! (`ParseQuantity`'s int64 fast path, which decides how a quantity prints).

pub(crate) mod layout;
mod quantity;
mod spew;

use serde_json::Value;

use crate::error::Error;

/// The `pod-template-hash` label value of `template` (a `PodTemplateSpec` as JSON) with the
/// Deployment's `status.collisionCount`, e.g. `"5f4695c4b4"`.
///
/// Error paths are relative to the template (`spec.containers[0].ports[1].containerPort`);
/// place them with [`Error::under`] (`"spec.template"`).
pub fn pod_template_hash(template: &Value, collision_count: Option<i32>) -> Result<String, Error> {
    template_fnv32a(template, collision_count).map(safe_encode)
}

/// The 32-bit FNV-1a sum behind [`pod_template_hash`].
pub fn template_fnv32a(template: &Value, collision_count: Option<i32>) -> Result<u32, Error> {
    let dump = template_dump(template)?;
    let mut hash = Fnv32a::new();
    hash.write(dump.as_bytes());
    if let Some(count) = collision_count {
        hash.write(&collision_bytes(count));
    }
    Ok(hash.sum())
}

/// The go-spew text of the decoded template that [`template_fnv32a`] hashes.
pub fn template_dump(template: &Value) -> Result<String, Error> {
    spew::dump(template)
}

/// 32-bit FNV-1a (Go's `hash/fnv.New32a`).
struct Fnv32a(u32);

impl Fnv32a {
    const OFFSET: u32 = 2_166_136_261;
    const PRIME: u32 = 16_777_619;

    fn new() -> Self {
        Fnv32a(Self::OFFSET)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u32::from(b)).wrapping_mul(Self::PRIME);
        }
    }

    fn sum(&self) -> u32 {
        self.0
    }
}

/// The 8 bytes upstream appends for a collision count: `uint32(count)` little-endian,
/// then four zero bytes (a `make([]byte, 8)` of which `PutUint32` fills the first four).
fn collision_bytes(count: i32) -> [u8; 8] {
    let [a, b, c, d] = count.to_le_bytes();
    [a, b, c, d, 0, 0, 0, 0]
}

/// `rand.SafeEncodeString(fmt.Sprint(sum))`: each decimal digit `c` (a byte 48..=57)
/// becomes `ALPHABET[c % 27]`.
fn safe_encode(sum: u32) -> String {
    const ALPHABET: &[u8; 27] = crate::rng::NAME_ALPHABET;
    sum.to_string()
        .bytes()
        .filter_map(|c| ALPHABET.get(usize::from(c) % ALPHABET.len()))
        .map(|&b| char::from(b))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::spew::folds_to;
    use super::*;
    use serde_json::json;

    /// A template as the API server defaults it (vector deployment-hash-0002).
    fn nginx() -> Value {
        json!({"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [{"name": "nginx",
            "image": "registry.example.com/core/nginx:1.6.9",
            "resources": {"requests": {"cpu": "250m", "memory": "1Gi"}},
            "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"},
                "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
            "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
            "imagePullPolicy": "IfNotPresent"}], "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
            "nodeSelector": {"kubernetes.io/os": "linux", "node-role": "a"}, "securityContext": {},
            "schedulerName": "default-scheduler"}})
    }

    fn fnv(bytes: &[u8]) -> u32 {
        let mut h = Fnv32a::new();
        h.write(bytes);
        h.sum()
    }

    fn dump(v: Value) -> String {
        template_dump(&v).unwrap()
    }

    fn error_path(v: Value) -> String {
        template_dump(&v).unwrap_err().path().to_owned()
    }

    #[test]
    fn fnv1a_32_known_values() {
        assert_eq!(fnv(b""), 0x811c_9dc5);
        assert_eq!(fnv(b"a"), 0xe40c_292c);
        assert_eq!(fnv(b"foobar"), 0xbf9c_f968);
        // Writing in pieces is writing the concatenation.
        let mut h = Fnv32a::new();
        h.write(b"foo");
        h.write(b"bar");
        assert_eq!(h.sum(), 0xbf9c_f968);
    }

    #[test]
    fn safe_alphabet_maps_each_decimal_digit() {
        assert_eq!(safe_encode(1_902_517_060), "5f4695c4b4");
        assert_eq!(safe_encode(0), "4");
        assert_eq!(safe_encode(123_456_789), "56789bcdf");
        assert_eq!(safe_encode(u32::MAX), "86f8fbc6f9");
    }

    #[test]
    fn collision_count_is_u32_little_endian_then_four_zero_bytes() {
        assert_eq!(collision_bytes(0), [0; 8]);
        assert_eq!(collision_bytes(256), [0, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(collision_bytes(i32::MAX), [255, 255, 255, 127, 0, 0, 0, 0]);
        assert_eq!(collision_bytes(-1), [255, 255, 255, 255, 0, 0, 0, 0]);
        let t = nginx();
        let mut text = template_dump(&t).unwrap().into_bytes();
        assert_eq!(template_fnv32a(&t, None).unwrap(), fnv(&text));
        text.extend_from_slice(&[11, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(template_fnv32a(&t, Some(11)).unwrap(), fnv(&text));
        assert_ne!(
            template_fnv32a(&t, Some(0)).unwrap(),
            template_fnv32a(&t, None).unwrap()
        );
    }

    #[test]
    fn a_recorded_vector() {
        assert_eq!(template_fnv32a(&nginx(), Some(11)).unwrap(), 106_510_393);
        assert_eq!(pod_template_hash(&nginx(), Some(11)).unwrap(), "54b9547f7");
    }

    #[test]
    fn empty_template_is_the_zero_value() {
        let text = dump(json!({}));
        assert!(text.starts_with(
            "(v1.PodTemplateSpec){ObjectMeta:(v1.ObjectMeta){Name:(string) GenerateName:(string) \
             Namespace:(string) SelfLink:(string) UID:(types.UID) ResourceVersion:(string) \
             Generation:(int64)0 CreationTimestamp:(v1.Time){Time:(time.Time){wall:(uint64)0 \
             ext:(int64)0 loc:(*time.Location)<nil>}} DeletionTimestamp:(*v1.Time)<nil> "
        ));
        assert!(text.contains("} Spec:(v1.PodSpec){Volumes:([]v1.Volume)<nil> InitContainers:"));
        assert!(text.ends_with(" SchedulingGroup:(*v1.PodSchedulingGroup)<nil>}}"));
        // null members and a null template decode to the same zero value.
        assert_eq!(dump(json!(null)), text);
        assert_eq!(
            dump(json!({"metadata": null, "spec": {"hostname": null}})),
            text
        );
        assert_eq!(
            pod_template_hash(&json!({}), None).unwrap(),
            safe_encode(fnv(text.as_bytes()))
        );
    }

    #[test]
    fn quantities_render_their_int64_form() {
        let text = dump(json!({"spec": {"containers": [{"resources": {"limits": {
            "memory": "256Mi", "cpu": "1", "ephemeral-storage": " 1Gi "}}}]}}));
        assert!(text.contains(
            "Limits:(v1.ResourceList)map[cpu:{i:(resource.int64Amount){value:(int64)1 \
             scale:(resource.Scale)0} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)1 \
             Format:(resource.Format)DecimalSI} ephemeral-storage:{i:(resource.int64Amount)\
             {value:(int64)1073741824 scale:(resource.Scale)0} d:(resource.infDecAmount)\
             {Dec:(*inf.Dec)<nil>} s:(string)1Gi Format:(resource.Format)BinarySI} \
             memory:{i:(resource.int64Amount){value:(int64)268435456 scale:(resource.Scale)0} \
             d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string) \
             Format:(resource.Format)BinarySI}] Requests:(v1.ResourceList)<nil>"
        ));
        // A pointer to a quantity (emptyDir.sizeLimit) prints its type once.
        let text =
            dump(json!({"spec": {"volumes": [{"name": "v", "emptyDir": {"sizeLimit": 500}}]}}));
        assert!(text.contains(
            "EmptyDir:(*v1.EmptyDirVolumeSource){Medium:(v1.StorageMedium) \
             SizeLimit:(*resource.Quantity){i:(resource.int64Amount){value:(int64)500 \
             scale:(resource.Scale)0} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} \
             s:(string)500 Format:(resource.Format)DecimalSI}}"
        ));
    }

    #[test]
    fn unrepresentable_quantities_are_errors() {
        for v in [
            json!("1.5n"),
            json!(0.5),
            json!("12345678901234567890"),
            json!(true),
        ] {
            let e = template_dump(&json!({"spec": {"overhead": {"cpu": v}}})).unwrap_err();
            assert_eq!(e.path(), "spec.overhead.cpu", "{v}");
        }
    }

    #[test]
    fn map_keys_are_sorted_bytewise_and_empty_collections_are_not_nil() {
        let text = dump(
            json!({"metadata": {"labels": {"b": "2", "a": "1", "B": "0", "": "e"}},
            "spec": {"nodeSelector": {}, "containers": [{"args": [], "command": null}]}}),
        );
        assert!(text.contains("Labels:(map[string]string)map[:e B:0 a:1 b:2] Annotations:"));
        assert!(text.contains("NodeSelector:(map[string]string)map[] "));
        assert!(text.contains("Command:([]string)<nil> Args:([]string)[] WorkingDir:"));
    }

    #[test]
    fn int_or_string_and_pointers() {
        let text = dump(
            json!({"spec": {"containers": [{"livenessProbe": {"tcpSocket": {"port": "http"}},
            "securityContext": {"runAsUser": 1000, "privileged": false}}]}}),
        );
        assert!(text.contains(
            "TCPSocket:(*v1.TCPSocketAction){Port:(intstr.IntOrString){Type:(intstr.Type)1 \
             IntVal:(int32)0 StrVal:(string)http} Host:(string)}"
        ));
        assert!(text.contains("Privileged:(*bool)false"));
        assert!(text.contains("RunAsUser:(*int64)1000"));
    }

    #[test]
    fn members_match_case_insensitively_as_in_encoding_json() {
        let plain = dump(json!({"spec": {"containers": [{"name": "x", "stdin": true}]}}));
        assert_eq!(
            dump(json!({"Spec": {"CONTAINERS": [{"Name": "x", "stdIn": true}]}})),
            plain
        );
        // ſ (U+017F) folds to S, K (Kelvin sign) to K.
        assert!(folds_to("\u{17f}pec", "spec"));
        assert!(folds_to("\u{212a}ind", "kind"));
        assert!(!folds_to("spec2", "spec"));
        assert!(!folds_to("spe", "spec"));
        assert!(!folds_to("sp\u{e9}c", "spec"));
        // Several members for one field: the same value is fine, different values are refused.
        assert_eq!(
            dump(json!({"spec": {"hostname": "a", "Hostname": "a"}})),
            dump(json!({"spec": {"hostname": "a"}}))
        );
        assert_eq!(
            error_path(json!({"spec": {"hostname": "a", "Hostname": "b"}})),
            "spec.hostname"
        );
        // Members naming no field are ignored.
        assert_eq!(
            dump(
                json!({"spec": {"containers": [{"name": "x", "stdin": true, "bogus": [1]}]}, "status": {}})
            ),
            plain
        );
    }

    #[test]
    fn wrong_types_name_the_field_path() {
        let port = json!({"spec": {"containers": [{"ports": [{"containerPort": 80}, {"containerPort": "80"}]}]}});
        assert_eq!(
            error_path(port),
            "spec.containers[0].ports[1].containerPort"
        );
        assert_eq!(
            error_path(json!({"metadata": {"labels": {"app": 1}}})),
            "metadata.labels.app"
        );
        assert_eq!(
            error_path(json!({"spec": {"hostNetwork": "true"}})),
            "spec.hostNetwork"
        );
        assert_eq!(
            error_path(json!({"spec": {"priority": 2_147_483_648_i64}})),
            "spec.priority"
        );
        assert_eq!(
            error_path(json!({"spec": {"priority": 1.0}})),
            "spec.priority"
        );
        assert_eq!(error_path(json!({"spec": {"volumes": {}}})), "spec.volumes");
        assert_eq!(
            error_path(json!({"spec": {"volumes": [{"name": "v", "hostPath": "/x"}]}})),
            "spec.volumes[0].hostPath"
        );
        assert_eq!(error_path(json!([])), "");
        assert_eq!(
            error_path(json!({"metadata": {"creationTimestamp": "2026-01-01T00:00:00Z"}})),
            "metadata.creationTimestamp"
        );
        assert_eq!(
            error_path(json!({"metadata": {"managedFields": [{"fieldsV1": {"f:spec": {}}}]}})),
            "metadata.managedFields[0].fieldsV1"
        );
        let e = pod_template_hash(&json!({"spec": {"hostNetwork": 1}}), None).unwrap_err();
        assert_eq!(
            e.under("spec.template").path(),
            "spec.template.spec.hostNetwork"
        );
    }

    /// Every subtree of a realistic template replaced by values of every JSON type: the
    /// result is a dump or an error naming a path at or below the replaced one, never a
    /// panic.
    #[test]
    fn any_value_anywhere_is_a_dump_or_a_path_error() {
        /// (JSON pointer, error path) of every member and element.
        fn paths(v: &Value, ptr: &str, at: &str, out: &mut Vec<(String, String)>) {
            let children: Vec<(String, String, &Value)> = match v {
                Value::Object(m) => m
                    .iter()
                    .map(|(k, c)| {
                        let p = if at.is_empty() {
                            k.clone()
                        } else {
                            format!("{at}.{k}")
                        };
                        (
                            format!("{ptr}/{}", k.replace('~', "~0").replace('/', "~1")),
                            p,
                            c,
                        )
                    })
                    .collect(),
                Value::Array(a) => a
                    .iter()
                    .enumerate()
                    .map(|(i, c)| (format!("{ptr}/{i}"), format!("{at}[{i}]"), c))
                    .collect(),
                _ => Vec::new(),
            };
            for (p, a, c) in children {
                out.push((p.clone(), a.clone()));
                paths(c, &p, &a, out);
            }
        }
        let mut base = nginx();
        base["spec"]["volumes"] = json!([{"name": "c", "configMap": {"name": "c", "items": [{"key": "k", "path": "p"}]}}]);
        base["spec"]["tolerations"] =
            json!([{"key": "k", "operator": "Exists", "tolerationSeconds": 5}]);
        let mut all = Vec::new();
        paths(&base, "", "", &mut all);
        let replacements = [
            json!(null),
            json!(true),
            json!(-1),
            json!(1.5),
            json!("x"),
            json!([]),
            json!({}),
            json!([1, "a"]),
            json!({"a": [null]}),
        ];
        let mut errors = 0;
        for (pointer, path) in &all {
            for r in &replacements {
                let mut t = base.clone();
                *t.pointer_mut(pointer).unwrap() = r.clone();
                if let Err(e) = template_dump(&t) {
                    errors += 1;
                    assert!(e.path().starts_with(path.as_str()), "{path} := {r}: {e}");
                }
            }
        }
        assert!(errors > 100, "{errors}");
    }
}
