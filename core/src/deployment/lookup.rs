//! Finding the new and the old ReplicaSets (D-25, D-26), template equality ignoring the
//! hash label, and upstream's orders of ReplicaSets.

use std::cmp::Ordering;

use serde_json::Value;

use super::model::{Deployment, Rs, HASH_LABEL};
use super::revision::revision;

/// The wire pod template of a ReplicaSet (`spec.template`), `null` when absent.
pub(crate) fn rs_template(rs: &Rs) -> &Value {
    rs.wire
        .get("spec")
        .and_then(|s| s.get("template"))
        .unwrap_or(&Value::Null)
}

/// D-25 `EqualIgnoreHash`: semantic equality of two pod templates with the
/// `pod-template-hash` label removed from both. Like Go's semantic `DeepEqual` on the
/// decoded structs, an absent field, `null`, an empty map and an empty list are alike.
pub(crate) fn equal_ignore_hash(a: &Value, b: &Value) -> bool {
    // Compared in place (no copies): the root, its `metadata`, then `labels` without the
    // hash label, each by the same rules as [`semantic_eq`].
    fields_eq(a, b, &|key, x, y| match key {
        "metadata" => fields_eq(x, y, &|key, x, y| match key {
            "labels" => fields_eq(x, y, &|key, x, y| key == HASH_LABEL || semantic_eq(x, y)),
            _ => semantic_eq(x, y),
        }),
        _ => semantic_eq(x, y),
    })
}

/// Two values equal field by field by `field_eq` when both are objects (a field absent
/// from one side is compared with `null`); otherwise [`semantic_eq`].
fn fields_eq(a: &Value, b: &Value, field_eq: &dyn Fn(&str, &Value, &Value) -> bool) -> bool {
    const NULL: Value = Value::Null;
    let empty = serde_json::Map::new();
    let as_map = |v: &'_ Value| -> Option<bool> {
        match v {
            Value::Object(_) => Some(true),
            v if is_empty(v) => Some(false),
            _ => None,
        }
    };
    let (x, y) = match (as_map(a), as_map(b)) {
        (Some(_), Some(_)) => (
            a.as_object().unwrap_or(&empty),
            b.as_object().unwrap_or(&empty),
        ),
        _ => return semantic_eq(a, b),
    };
    each_field(x, y, |k, v, w| {
        field_eq(k, v.unwrap_or(&NULL), w.unwrap_or(&NULL))
    })
}

/// `f(key, x's value, y's value)` holds for every key of either map, visited in one
/// merged pass over both (a map iterates in key order: serde_json's map is a `BTreeMap`
/// without its `preserve_order` feature, which the workspace does not enable and a unit
/// test below guards).
fn each_field(
    x: &serde_json::Map<String, Value>,
    y: &serde_json::Map<String, Value>,
    mut f: impl FnMut(&str, Option<&Value>, Option<&Value>) -> bool,
) -> bool {
    let (mut xs, mut ys) = (x.iter().peekable(), y.iter().peekable());
    loop {
        let holds = match (xs.peek(), ys.peek()) {
            (None, None) => return true,
            (Some(&(k, v)), None) => {
                xs.next();
                f(k, Some(v), None)
            }
            (None, Some(&(k, w))) => {
                ys.next();
                f(k, None, Some(w))
            }
            (Some(&(k, v)), Some(&(l, w))) => match k.cmp(l) {
                Ordering::Less => {
                    xs.next();
                    f(k, Some(v), None)
                }
                Ordering::Greater => {
                    ys.next();
                    f(l, None, Some(w))
                }
                Ordering::Equal => {
                    xs.next();
                    ys.next();
                    f(k, Some(v), Some(w))
                }
            },
        };
        if !holds {
            return false;
        }
    }
}

/// Is `v` what Go decodes to a zero/nil value that compares equal to an absent field?
fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.values().all(is_empty),
        _ => false,
    }
}

/// Structural equality where empty values equal absent ones, and resource quantities
/// (the values of `limits`, `requests`, `overhead`, and `sizeLimit`) compare by value
/// (`"500m"` = `"0.5"`), as Go's semantic equality compares `resource.Quantity`.
pub(crate) fn semantic_eq(a: &Value, b: &Value) -> bool {
    eq_in(a, b, false)
}

fn eq_in(a: &Value, b: &Value, quantities: bool) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let inner = |k: &str| matches!(k, "limits" | "requests" | "overhead");
            let field = |k: &str, v: &Value, w: &Value| {
                if k == "sizeLimit" {
                    quantity_eq(v, w)
                } else {
                    eq_in(v, w, inner(k))
                }
            };
            each_field(x, y, |k, v, w| match (v, w) {
                (Some(v), Some(w)) => field(k, v, w) || (quantities && quantity_eq(v, w)),
                (Some(v), None) | (None, Some(v)) => is_empty(v),
                (None, None) => true,
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| eq_in(v, w, false))
        }
        (Value::Number(x), Value::Number(y)) => {
            x == y || (x.as_f64().is_some() && x.as_f64() == y.as_f64())
        }
        (Value::String(_), Value::String(_)) if quantities => quantity_eq(a, b),
        _ if is_empty(a) && is_empty(b) => true,
        _ => a == b,
    }
}

/// Two quantities (strings or numbers) with the same value.
fn quantity_eq(a: &Value, b: &Value) -> bool {
    if a == b {
        return true;
    }
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    match (
        text(a).and_then(|s| quantity(&s)),
        text(b).and_then(|s| quantity(&s)),
    ) {
        (Some(x), Some(y)) => same_value(x, y),
        _ => a == b,
    }
}

/// `resource.ParseQuantity` as (mantissa, power of ten, power of two).
fn quantity(s: &str) -> Option<(i128, i32, u32)> {
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..)?),
        Some(b'+') => (false, s.get(1..)?),
        _ => (false, s),
    };
    let number_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(number_end);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() || whole.len() + fraction.len() > 30 {
        return None;
    }
    let mut mantissa: i128 = 0;
    for c in whole.bytes().chain(fraction.bytes()) {
        mantissa = mantissa
            .checked_mul(10)?
            .checked_add(i128::from(c - b'0'))?;
    }
    let mut exp10 = -i32::try_from(fraction.len()).ok()?;
    let mut exp2 = 0u32;
    match suffix {
        "" => {}
        "n" => exp10 -= 9,
        "u" => exp10 -= 6,
        "m" => exp10 -= 3,
        "k" => exp10 += 3,
        "M" => exp10 += 6,
        "G" => exp10 += 9,
        "T" => exp10 += 12,
        "P" => exp10 += 15,
        "E" => exp10 += 18,
        "Ki" => exp2 = 10,
        "Mi" => exp2 = 20,
        "Gi" => exp2 = 30,
        "Ti" => exp2 = 40,
        "Pi" => exp2 = 50,
        "Ei" => exp2 = 60,
        other => {
            let e = other.strip_prefix(['e', 'E'])?;
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            exp10 = exp10.checked_add(e.parse::<i32>().ok()?)?;
        }
    }
    Some((if negative { -mantissa } else { mantissa }, exp10, exp2))
}

/// m₁·10^e₁·2^p₁ = m₂·10^e₂·2^p₂, exactly (false when the check would overflow).
fn same_value(a: (i128, i32, u32), b: (i128, i32, u32)) -> bool {
    let scale = |m: i128, e: i32, p: u32, e_min: i32, p_min: u32| -> Option<i128> {
        let ten = 10i128.checked_pow(u32::try_from(e - e_min).ok()?)?;
        let two = 2i128.checked_pow(p - p_min)?;
        m.checked_mul(ten)?.checked_mul(two)
    };
    let (e_min, p_min) = (a.1.min(b.1), a.2.min(b.2));
    match (
        scale(a.0, a.1, a.2, e_min, p_min),
        scale(b.0, b.1, b.2, e_min, p_min),
    ) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// `ReplicaSetsByCreationTimestamp`: creation time, then name.
pub(crate) fn by_creation(a: &Rs, b: &Rs) -> Ordering {
    a.metadata
        .creation_timestamp
        .cmp(&b.metadata.creation_timestamp)
        .then_with(|| a.metadata.name.cmp(&b.metadata.name))
}

/// `ReplicaSetsBySizeNewer` (D-44, scaling up): larger first, ties newer first.
pub(crate) fn by_size_newer(a: &Rs, b: &Rs) -> Ordering {
    b.spec
        .desired()
        .cmp(&a.spec.desired())
        .then_with(|| by_creation(b, a))
}

/// `ReplicaSetsBySizeOlder` (D-44, scaling down): larger first, ties older first.
pub(crate) fn by_size_older(a: &Rs, b: &Rs) -> Ordering {
    b.spec
        .desired()
        .cmp(&a.spec.desired())
        .then_with(|| by_creation(a, b))
}

/// `ReplicaSetsByRevision` (D-70) as a less-than: revision ascending; creation time then
/// name when either revision does not parse or they are equal. Not a total order when
/// revisions do not parse, so the sort algorithm matters: see [`go_sort`].
pub(crate) fn revision_less(a: &Rs, b: &Rs) -> bool {
    match (revision(&a.metadata), revision(&b.metadata)) {
        (Some(x), Some(y)) if x != y => x < y,
        _ => by_creation(a, b) == Ordering::Less,
    }
}

/// Go's `sort.Sort` on up to 12 elements is an insertion sort (pdqsort's small case);
/// with an inconsistent `less` (unparseable revisions) the result depends on that, so the
/// same insertion sort is used here, for any length: exact up to 12 elements, and never
/// a panic (Rust's own sorts may panic on an inconsistent order). Longer lists (more than
/// 12 cleanable old RSs with unparseable revisions) may differ from Go's pdqsort.
pub(crate) fn go_sort<T>(items: &mut [T], less: impl Fn(&T, &T) -> bool) {
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 {
            let swap = match (items.get(j), items.get(j - 1)) {
                (Some(x), Some(y)) => less(x, y),
                _ => false,
            };
            if !swap {
                break;
            }
            items.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// D-25 `FindNewReplicaSet`: sorts `rs_list` (creation time, name) in place and returns
/// the index of the oldest RS whose template equals the deployment's ignoring the hash
/// label.
pub(crate) fn find_new(d: &Deployment, rs_list: &mut [Rs]) -> Option<usize> {
    crate::sort::sort_by(rs_list, by_creation);
    rs_list
        .iter()
        .position(|rs| equal_ignore_hash(rs_template(rs), &d.spec.template))
}

/// D-26 `FindOldReplicaSets` (all of them): every RS but the new one, in list order.
pub(crate) fn find_old(d: &Deployment, rs_list: &mut [Rs]) -> (Option<Rs>, Vec<Rs>) {
    let (new, old) = find_new_and_old(d, rs_list);
    (new.and_then(|i| rs_list.get(i).cloned()), old)
}

/// D-25 + D-26 with one template comparison per RS: the index of the new RS in the
/// sorted `rs_list` ([`find_new`]) and every other RS, in list order.
pub(crate) fn find_new_and_old(d: &Deployment, rs_list: &mut [Rs]) -> (Option<usize>, Vec<Rs>) {
    let new = find_new(d, rs_list);
    let new_uid = new.and_then(|i| rs_list.get(i)).map(|n| &n.metadata.uid);
    let old = rs_list
        .iter()
        .filter(|rs| new_uid.is_none_or(|uid| *uid != rs.metadata.uid))
        .cloned()
        .collect();
    (new, old)
}

/// "Active": `spec.replicas > 0` (`FilterActiveReplicaSets`).
pub(crate) fn is_active(rs: &Rs) -> bool {
    rs.spec.desired() > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`each_field`] merges two maps in one pass: that needs serde_json's map to iterate
    /// in key order (no `preserve_order` feature anywhere in the build).
    #[test]
    fn json_maps_iterate_in_key_order() {
        let v: Value = serde_json::from_str(r#"{"b": 1, "a": 2, "c": 3}"#).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["a", "b", "c"]);
    }

    #[test]
    fn templates_equal_in_any_key_order_with_empty_fields_absent() {
        let a: Value = serde_json::from_str(
            r#"{"metadata": {"labels": {"app": "w", "pod-template-hash": "x"}},
                "spec": {"containers": [{"name": "c", "image": "i",
                  "resources": {"limits": {"cpu": "500m"}}}], "volumes": []}}"#,
        )
        .unwrap();
        let b: Value = serde_json::from_str(
            r#"{"spec": {"containers": [{"image": "i", "name": "c",
                  "resources": {"limits": {"cpu": "0.5"}}, "env": []}]},
                "metadata": {"annotations": {}, "labels": {"app": "w"}}}"#,
        )
        .unwrap();
        assert!(equal_ignore_hash(&a, &b));
        let mut c = b.clone();
        c["spec"]["containers"][0]["image"] = Value::from("j");
        assert!(!equal_ignore_hash(&a, &c));
        c = b.clone();
        c["metadata"]["labels"]["zz"] = Value::from("1");
        assert!(!equal_ignore_hash(&a, &c));
    }
}
