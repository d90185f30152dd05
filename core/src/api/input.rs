//! Inputs: parsing from JSON with the field path of every error, and the checks that a
//! well-typed input can still fail (negative counts, missing names, duplicate pods).

use crate::fxhash::FxHashMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::jsonpath;
use crate::error::{join_path, Error, Result};
use crate::expectations::Expectations;
use crate::model::{Pod, ReplicaSet};
use crate::objects::Object;
use crate::replicaset::digest::{Digested, PodDigest, Pods};
use crate::time::Time;

/// Everything one sync decides from (§2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SyncInput {
    /// The controller clock: status, availability, requeue, expectations, ranking.
    pub now: Time,
    /// The owner as the host's cache holds it.
    #[serde(alias = "replicaSet", deserialize_with = "crate::objects::object")]
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::KubeObject"))]
    pub owner: ReplicaSet,
    /// Other owners in the cache (siblings under the same Deployment matter, R-45).
    #[serde(
        default,
        alias = "otherReplicaSets",
        deserialize_with = "crate::objects::objects"
    )]
    #[cfg_attr(feature = "ts", ts(as = "Vec<crate::ts::KubeObject>", optional = nullable))]
    pub other_owners: Vec<ReplicaSet>,
    /// The pods the host's cache holds; the engine picks the owner's and the orphans of
    /// its namespace (R-20..R-22) and the related ones.
    /// Each pod's [`crate::PodDigest`] is computed once, when it enters the list.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Vec<crate::ts::KubeObject>", optional = nullable))]
    pub pods: Pods,
    /// The owner's expectations before this sync.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub expectations: Expectations,
    /// S-2: false when the host's informers have not yet seen the owner's latest writes.
    #[serde(default = "yes")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub cache_is_fresh: bool,
}

fn yes() -> bool {
    true
}

/// A sync input by reference: what [`crate::plan()`] reads. A [`SyncInput`] lends
/// one with [`SyncInput::view`]; the [`crate::Store`] makes one from the objects
/// it holds, without copying a pod.
#[derive(Clone, Debug)]
pub struct SyncView<'a> {
    /// The controller clock, as [`SyncInput::now`].
    pub now: Time,
    /// The owner being synced, as [`SyncInput::owner`].
    pub owner: &'a ReplicaSet,
    /// The other owners in the cache, as [`SyncInput::other_owners`].
    pub other_owners: Vec<&'a ReplicaSet>,
    /// The pods in the cache, as [`SyncInput::pods`].
    pub pods: Vec<&'a Pod>,
    /// Per pod of `pods`, its digest.
    pub(crate) digests: &'a [PodDigest],
    /// The owner's expectations before this sync, as [`SyncInput::expectations`].
    pub expectations: &'a Expectations,
    /// S-2: false when the cache has not yet seen the owner's latest writes, as
    /// [`SyncInput::cache_is_fresh`].
    pub cache_is_fresh: bool,
}

impl<'a> SyncView<'a> {
    /// The pod at `index` with its digest.
    pub(crate) fn digested(&self, index: usize) -> Option<Digested<'a>> {
        Some(Digested {
            pod: self.pods.get(index)?,
            digest: self.digests.get(index)?,
        })
    }
}

/// Parses any JSON document (object, array, scalar); a syntax error gives its position.
pub fn parse_json(bytes: &[u8]) -> Result<serde_json::Value> {
    from_json_any(bytes)
}

/// Converts any JSON value into `T` (a timestamp, a list, an optional object…), with the
/// field path of every error. Struct-typed fields inside still accept objects only.
pub fn from_value_any<T: DeserializeOwned>(value: serde_json::Value) -> Result<T> {
    // Through the text, so that every parse is one deserializer and errors find their
    // path the same way.
    from_json_any(&to_text(&value)?)
}

fn to_text(value: &serde_json::Value) -> Result<Vec<u8>> {
    serde_json::to_vec(value).map_err(|e| Error::Malformed {
        path: ".".into(),
        message: e.to_string(),
    })
}

/// Parses any JSON document into `T` (a list, a timestamp, an optional object…), with the
/// field path of every error. Struct-typed fields inside still accept objects only.
///
/// JSON text is UTF-8 (RFC 8259 §8.1): the whole text is checked once, and a byte that is
/// not UTF-8 is a syntax error at its path, even inside a value the engine does not read.
/// serde_json then reads a `str`, and need not check again each string it keeps (7% of
/// reading the 10,000-pod list).
pub fn from_json_any<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    // What `serde_json::from_str` does, with the reader's set-up and its end check out of
    // the generic part: each type read puts only its own `deserialize` call in the binary.
    let mut reader = json_reader(bytes)?;
    match T::deserialize(&mut reader) {
        Ok(value) => json_end(bytes, &mut reader).map(|()| value),
        Err(e) => Err(path_error(bytes, &e)),
    }
}

/// The JSON reader over `bytes`, checked to be UTF-8 (see [`from_json_any`]).
fn json_reader(bytes: &[u8]) -> Result<serde_json::Deserializer<serde_json::de::StrRead<'_>>> {
    let text = std::str::from_utf8(bytes).map_err(|e| not_utf8(bytes, &e))?;
    Ok(serde_json::Deserializer::from_str(text))
}

/// Only whitespace may follow the value read (`serde_json::from_str`'s check).
fn json_end(
    bytes: &[u8],
    reader: &mut serde_json::Deserializer<serde_json::de::StrRead<'_>>,
) -> Result<()> {
    reader.end().map_err(|e| path_error(bytes, &e))
}

/// The syntax error for text that is not UTF-8, at the path of its first bad byte.
fn not_utf8(bytes: &[u8], e: &std::str::Utf8Error) -> Error {
    let at = e.valid_up_to();
    let before = bytes.get(..at).unwrap_or_default();
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    Error::Syntax {
        path: or_root(jsonpath::path_at(bytes, at)),
        message: format!(
            "invalid UTF-8 at line {line} column {}",
            at - line_start + 1
        ),
    }
}

/// `path`, or `.` for the document itself.
fn or_root(path: String) -> String {
    if path.is_empty() {
        ".".into()
    } else {
        path
    }
}

/// Parses a JSON object into `T`; a failure names the JSON path of the offending field.
pub fn from_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    from_json_any::<Object<T>>(bytes).map(|o| o.0)
}

/// Converts a JSON object (`serde_json::Value`) into `T`, with the field path of every
/// error.
pub fn from_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T> {
    from_json(&to_text(&value)?)
}

/// The engine's error for a serde_json error in `bytes`: the field path is recovered from
/// the position serde_json reports (see [`super::jsonpath`]).
fn path_error(bytes: &[u8], inner: &serde_json::Error) -> Error {
    // serde_json quotes the whole offending value: cut it (a 5 MB string is not a 5 MB
    // message).
    let mut message = crate::error::cap_quotes(&inner.to_string());
    // serde_json appends " at line L column C": keep it for syntax errors (it locates the
    // error in the text), drop it for type errors, whose path already says where.
    if !inner.is_syntax() && !inner.is_eof() {
        if let Some(i) = message.find(" at line ") {
            message.truncate(i);
        }
    }
    let missing = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
        .map(str::to_owned);
    let path = jsonpath::offset_of(bytes, inner.line(), inner.column())
        .map(|at| jsonpath::path_at(bytes, at))
        .unwrap_or_default();
    // "missing field `now`": the path is the enclosing object's; name the field itself.
    if let Some(field) = missing {
        return Error::Missing {
            path: join_path(&path, &field),
        };
    }
    let path = or_root(path);
    if inner.is_syntax() || inner.is_eof() {
        return Error::Syntax { path, message };
    }
    Error::Malformed { path, message }
}

impl SyncInput {
    /// Parses and validates a sync input from JSON text.
    pub fn from_json(bytes: &[u8]) -> Result<SyncInput> {
        let input: SyncInput = from_json(bytes)?;
        input.validate()?;
        Ok(input)
    }

    /// The input by reference.
    pub fn view(&self) -> SyncView<'_> {
        SyncView {
            now: self.now,
            owner: &self.owner,
            other_owners: self.other_owners.iter().collect(),
            pods: self.pods.iter().collect(),
            digests: self.pods.digests(),
            expectations: &self.expectations,
            cache_is_fresh: self.cache_is_fresh,
        }
    }

    /// The checks types cannot express (R-21, E-08, §2).
    pub fn validate(&self) -> Result<()> {
        validate_owner(&self.owner, "owner")?;
        for (i, rs) in self.other_owners.iter().enumerate() {
            validate_owner_counts(rs, &format!("otherOwners[{i}]"))?;
        }
        validate_digested_pods(&self.pods, "pods")
    }
}

/// an owner needs a namespace, name and UID; counts must not be negative.
pub(crate) fn validate_owner(rs: &ReplicaSet, path: &str) -> Result<()> {
    for (field, value) in [
        ("name", &rs.metadata.name),
        ("namespace", &rs.metadata.namespace),
        ("uid", &rs.metadata.uid),
    ] {
        if value.is_empty() {
            return Err(Error::Missing {
                path: format!("{path}.metadata.{field}"),
            });
        }
    }
    validate_owner_counts(rs, path)
}

fn validate_owner_counts(rs: &ReplicaSet, path: &str) -> Result<()> {
    if let Some(r) = rs.spec.replicas.filter(|r| *r < 0) {
        return Err(Error::Negative {
            path: format!("{path}.spec.replicas"),
            value: i64::from(r),
        });
    }
    if rs.spec.min_ready_seconds < 0 {
        return Err(Error::Negative {
            path: format!("{path}.spec.minReadySeconds"),
            value: i64::from(rs.spec.min_ready_seconds),
        });
    }
    Ok(())
}

/// A pod needs a name (E-08).
pub(crate) fn validate_pod(pod: &Pod, path: &str) -> Result<()> {
    if pod.metadata.name.is_empty() {
        return Err(Error::Missing {
            path: format!("{path}.metadata.name"),
        });
    }
    Ok(())
}

/// [`validate_pods`] over a [`Pods`] list: duplicates are found by the digests'
/// `namespace/name` fingerprints, and confirmed on the names.
fn validate_digested_pods(pods: &Pods, path: &str) -> Result<()> {
    let mut seen: FxHashMap<u128, usize> =
        FxHashMap::with_capacity_and_hasher(pods.len(), Default::default());
    for (i, d) in pods.digests().iter().enumerate() {
        if !d.is_named() {
            return Err(Error::Missing {
                path: format!("{path}[{i}].metadata.name"),
            });
        }
        if let Some(first) = seen.insert(d.key, i) {
            let Some(p) = pods.get(i) else {
                continue;
            };
            if pods.get(first).map(|f| (f.namespace(), f.name())) == Some((p.namespace(), p.name()))
            {
                return Err(duplicate(path, i, p, first));
            }
            // Two keys sharing a fingerprint: check by the names themselves.
            return validate_pods(pods, path);
        }
    }
    Ok(())
}

fn duplicate(path: &str, i: usize, p: &Pod, first: usize) -> Error {
    Error::DuplicatePod {
        path: format!("{path}[{i}].metadata.name"),
        key: p.key(),
        first: format!("{path}[{first}]"),
    }
}

/// Every pod needs a name; no two pods may share namespace and name (E-08).
pub fn validate_pods(pods: &[Pod], path: &str) -> Result<()> {
    let mut seen: FxHashMap<(&str, &str), usize> =
        FxHashMap::with_capacity_and_hasher(pods.len(), Default::default());
    for (i, p) in pods.iter().enumerate() {
        if p.metadata.name.is_empty() {
            validate_pod(p, &format!("{path}[{i}]"))?;
        }
        if let Some(first) = seen.insert((p.namespace(), p.name()), i) {
            return Err(duplicate(path, i, p, first));
        }
    }
    Ok(())
}
