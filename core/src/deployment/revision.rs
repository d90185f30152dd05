//! Revision numbers and the annotations a new ReplicaSet carries (D-28..D-33, D-02).

use crate::model::{ObjectMeta, StringMap};

use super::model::{
    annotations_mut, skip_copy_annotation, Deployment, Rs, DESIRED_REPLICAS_ANNOTATION,
    MAX_REPLICAS_ANNOTATION, REVISION_ANNOTATION, REVISION_HISTORY_ANNOTATION,
};

/// D-28 `Revision`: the revision annotation as a decimal int64; missing ⇒ 0; not an
/// integer ⇒ `None`.
pub fn revision(meta: &ObjectMeta) -> Option<i64> {
    match meta
        .annotations
        .as_ref()
        .and_then(|a| a.get(REVISION_ANNOTATION))
    {
        None => Some(0),
        Some(v) => parse_int64(v),
    }
}

/// `strconv.ParseInt(s, 10, 64)`.
pub(crate) fn parse_int64(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// D-29 `MaxRevision`: the largest parseable revision (0 when none).
pub fn max_revision<'a>(rss: impl IntoIterator<Item = &'a Rs>) -> i64 {
    rss.into_iter()
        .filter_map(|rs| revision(&rs.metadata))
        .fold(0, i64::max)
}

/// D-92 `LastRevision`: the second-highest revision (equal maxima make it the max).
pub fn last_revision<'a>(rss: impl IntoIterator<Item = &'a Rs>) -> i64 {
    let (mut max, mut second) = (0i64, 0i64);
    for v in rss.into_iter().filter_map(|rs| revision(&rs.metadata)) {
        if v >= max {
            second = max;
            max = v;
        } else if v > second {
            second = v;
        }
    }
    second
}

/// D-30.1 `copyDeploymentAnnotationsToReplicaSet`: sets every deployment annotation not in
/// D-02 whose value differs or is absent; true when one changed.
pub(crate) fn copy_deployment_annotations(d: &Deployment, rs_meta: &mut ObjectMeta) -> bool {
    let target = annotations_mut(rs_meta);
    let mut changed = false;
    for (k, v) in d.metadata.annotations.iter().flatten() {
        if skip_copy_annotation(k) || target.get(k) == Some(v) {
            continue;
        }
        target.insert(k.clone(), v.clone());
        changed = true;
    }
    changed
}

/// D-30 / D-32 `SetNewReplicaSetAnnotations`: copy (D-30.1), revision bump with history
/// (D-30.2, D-33), and for a new RS (`exists` false) the replicas annotations.
pub fn set_new_rs_annotations(
    d: &Deployment,
    rs_meta: &mut ObjectMeta,
    new_revision: i64,
    exists: bool,
    max_replicas: i32,
    history_limit: usize,
) -> bool {
    let mut changed = copy_deployment_annotations(d, rs_meta);
    let annotations = annotations_mut(rs_meta);
    let old = annotations.get(REVISION_ANNOTATION).cloned();
    let old_value = match old.as_deref() {
        None | Some("") => 0,
        Some(v) => match parse_int64(v) {
            Some(n) => n,
            None => return false,
        },
    };
    if old_value < new_revision {
        annotations.insert(REVISION_ANNOTATION.into(), new_revision.to_string());
        changed = true;
        if let Some(old) = old {
            append_history(annotations, &old, history_limit);
        }
    }
    if !exists && set_replicas_annotations(annotations, d.replicas(), max_replicas) {
        changed = true;
    }
    changed
}

/// D-33: appends `old` to the revision history, dropping the oldest entries to stay
/// within `limit` characters; leaves it unchanged when even that does not fit.
fn append_history(annotations: &mut StringMap, old: &str, limit: usize) {
    let history = annotations
        .get(REVISION_HISTORY_ANNOTATION)
        .cloned()
        .unwrap_or_default();
    let entries: Vec<&str> = history.split(',').collect();
    if entries.first().is_none_or(|e| e.is_empty()) {
        annotations.insert(REVISION_HISTORY_ANNOTATION.into(), old.to_owned());
        return;
    }
    // Go's int arithmetic: lengths in bytes, may go negative.
    let mut total = history.len() as i64 + old.len() as i64 + 1;
    let mut start = 0;
    while total > limit as i64 && start < entries.len() {
        total -= entries.get(start).map_or(0, |e| e.len() as i64) + 1;
        start += 1;
    }
    if total <= limit as i64 {
        let mut kept: Vec<&str> = entries.get(start..).unwrap_or_default().to_vec();
        kept.push(old);
        annotations.insert(REVISION_HISTORY_ANNOTATION.into(), kept.join(","));
    }
}

/// `SetReplicasAnnotations`: desired-replicas and max-replicas; true when one changed.
pub(crate) fn set_replicas_annotations(
    annotations: &mut StringMap,
    desired: i32,
    max: i32,
) -> bool {
    let mut changed = false;
    for (key, value) in [
        (DESIRED_REPLICAS_ANNOTATION, desired),
        (MAX_REPLICAS_ANNOTATION, max),
    ] {
        let value = value.to_string();
        if annotations.get(key) != Some(&value) {
            annotations.insert(key.into(), value);
            changed = true;
        }
    }
    changed
}

/// `ReplicasAnnotationsNeedUpdate` (D-47).
pub(crate) fn replicas_annotations_need_update(meta: &ObjectMeta, desired: i32, max: i32) -> bool {
    let Some(a) = meta.annotations.as_ref() else {
        return true;
    };
    a.get(DESIRED_REPLICAS_ANNOTATION) != Some(&desired.to_string())
        || a.get(MAX_REPLICAS_ANNOTATION) != Some(&max.to_string())
}

/// `SetDeploymentRevision`: true when the deployment's revision annotation changed.
pub(crate) fn set_deployment_revision(d: &mut Deployment, revision: &str) -> bool {
    let a = annotations_mut(&mut d.metadata);
    if a.get(REVISION_ANNOTATION).map(String::as_str) == Some(revision) {
        return false;
    }
    a.insert(REVISION_ANNOTATION.into(), revision.to_owned());
    true
}

/// D-91 `SetDeploymentAnnotationsTo`: the deployment keeps its own D-02 annotations and
/// takes every other annotation from the RS it rolls back to.
pub fn set_deployment_annotations_to(d: &mut Deployment, rs_meta: &ObjectMeta) {
    let mut kept = StringMap::new();
    kept.extend(
        d.metadata
            .annotations
            .iter()
            .flatten()
            .filter(|(k, _)| skip_copy_annotation(k))
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    for (k, v) in rs_meta.annotations.iter().flatten() {
        if !skip_copy_annotation(k) {
            kept.insert(k.clone(), v.clone());
        }
    }
    d.metadata.annotations = Some(kept);
}

/// Non-negative int32 annotation (`getNonNegativeInt32FromAnnotation`): `ParseUint(v,
/// 10, 32)` within `i32`.
pub(crate) fn non_negative_i32_annotation(meta: &ObjectMeta, key: &str) -> Option<i32> {
    let v = meta.annotations.as_ref()?.get(key)?;
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = v.parse().ok()?;
    i32::try_from(n).ok()
}

/// `strconv.Atoi` of an annotation (`IsSaturated`, D-43).
pub(crate) fn atoi_annotation(meta: &ObjectMeta, key: &str) -> Option<i64> {
    let v = meta.annotations.as_ref()?.get(key)?;
    parse_int64(v)
}
