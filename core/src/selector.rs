//! Label selectors (R-10..R-13): a raw [`LabelSelector`] compiles into a validated
//! [`Selector`]; only a compiled selector can match.

use std::fmt;

use crate::error::quoted;
use crate::model::{LabelSelector, StringMap};

/// Why a label selector does not compile. The sync does nothing at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid label selector: {0}")]
pub struct SelectorError(pub String);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Op {
    Equals,
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    key: String,
    op: Op,
    values: Vec<String>,
}

/// A compiled label selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    /// A nil selector: matches no label set, not even the empty one.
    Nothing,
    /// Every requirement must hold; no requirements = everything.
    All(Vec<Requirement>),
}

impl Selector {
    /// `metav1.LabelSelectorAsSelector`.
    pub fn compile(selector: Option<&LabelSelector>) -> Result<Selector, SelectorError> {
        let Some(sel) = selector else {
            return Ok(Selector::Nothing);
        };
        let mut reqs = Vec::new();
        if let Some(labels) = &sel.match_labels {
            for (k, v) in labels {
                reqs.push(requirement(k, Op::Equals, std::slice::from_ref(v))?);
            }
        }
        if let Some(exprs) = &sel.match_expressions {
            for e in exprs {
                let op = match e.operator.as_str() {
                    "In" => Op::In,
                    "NotIn" => Op::NotIn,
                    "Exists" => Op::Exists,
                    "DoesNotExist" => Op::DoesNotExist,
                    other => {
                        return Err(SelectorError(format!(
                            "{} is not a valid label selector operator",
                            quoted(other)
                        )))
                    }
                };
                let values = e.values.as_deref().unwrap_or(&[]);
                reqs.push(requirement(&e.key, op, values)?);
            }
        }
        crate::sort::sort_by(&mut reqs, |a, b| a.key.cmp(&b.key));
        Ok(Selector::All(reqs))
    }

    /// the selector made of a template's labels, without validation; a nil or
    /// empty map matches everything.
    pub fn from_labels(labels: Option<&StringMap>) -> Selector {
        let reqs = labels
            .into_iter()
            .flatten()
            .map(|(k, v)| Requirement {
                key: k.clone(),
                op: Op::Equals,
                values: vec![v.clone()],
            })
            .collect();
        Selector::All(reqs)
    }

    /// does the label set satisfy every requirement?
    pub fn matches(&self, labels: Option<&StringMap>) -> bool {
        match self {
            Selector::Nothing => false,
            Selector::All(reqs) => reqs.iter().all(|r| r.matches(labels)),
        }
    }

    /// [`Selector::matches`] on the labels a pod's digest holds.
    pub(crate) fn matches_digest(&self, labels: crate::digest::Labels<'_>) -> bool {
        use crate::digest::same_bytes;
        match self {
            Selector::Nothing => false,
            Selector::All(reqs) => reqs.iter().all(|r| {
                let key = r.key.as_bytes();
                let value = labels
                    .clone()
                    .find(|(k, _)| same_bytes(k, key))
                    .map(|(_, v)| v);
                r.holds(value.map(|v| r.values.iter().any(|x| same_bytes(x.as_bytes(), v))))
            }),
        }
    }

    /// `{}`: the selector that matches every label set.
    pub fn is_everything(&self) -> bool {
        matches!(self, Selector::All(r) if r.is_empty())
    }

    pub fn is_nothing(&self) -> bool {
        matches!(self, Selector::Nothing)
    }
}

impl Requirement {
    fn matches(&self, labels: Option<&StringMap>) -> bool {
        let value = labels.and_then(|l| l.get(&self.key));
        self.holds(value.map(|v| self.values.contains(v)))
    }

    /// Given whether the key is present and, if so, whether its value is among the
    /// requirement's values.
    fn holds(&self, value_listed: Option<bool>) -> bool {
        match self.op {
            Op::Equals | Op::In => value_listed == Some(true),
            Op::NotIn => value_listed != Some(true),
            Op::Exists => value_listed.is_some(),
            Op::DoesNotExist => value_listed.is_none(),
        }
    }
}

fn requirement(key: &str, op: Op, values: &[String]) -> Result<Requirement, SelectorError> {
    validate_key(key)?;
    match op {
        Op::In | Op::NotIn if values.is_empty() => {
            return Err(SelectorError(format!(
                "key {}: for 'in', 'notin' operators, values set can't be empty",
                quoted(key)
            )))
        }
        Op::Equals if values.len() != 1 => {
            return Err(SelectorError(format!(
                "key {}: exact-match compatibility requires one single value",
                quoted(key)
            )))
        }
        Op::Exists | Op::DoesNotExist if !values.is_empty() => {
            return Err(SelectorError(format!(
                "key {}: values set must be empty for exists and does not exist",
                quoted(key)
            )))
        }
        _ => {}
    }
    for v in values {
        validate_value(v).map_err(|why| {
            SelectorError(format!(
                "key {}: invalid value {}: {why}",
                quoted(key),
                quoted(v)
            ))
        })?;
    }
    let mut values = values.to_vec();
    crate::sort::sort(&mut values);
    Ok(Requirement {
        key: key.to_owned(),
        op,
        values,
    })
}

/// A qualified name: `[prefix/]name`, prefix a DNS-1123 subdomain, name ≤ 63 characters.
fn validate_key(key: &str) -> Result<(), SelectorError> {
    let bad = |why: &str| {
        Err(SelectorError(format!(
            "invalid label key {}: {why}",
            quoted(key)
        )))
    };
    let (prefix, name) = match key.split_once('/') {
        None => (None, key),
        Some((p, n)) => (Some(p), n),
    };
    if name.contains('/') {
        return bad("a qualified name must consist of an optional prefix, '/', and a name");
    }
    if let Some(p) = prefix {
        if p.is_empty() {
            return bad("prefix part must be non-empty");
        }
        if !is_dns1123_subdomain(p) {
            return bad("prefix part must be a lowercase RFC 1123 subdomain");
        }
    }
    if name.is_empty() {
        return bad("name part must be non-empty");
    }
    if name.len() > 63 {
        return bad("name part must be no more than 63 characters");
    }
    if !is_label_name(name) {
        return bad("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
    }
    Ok(())
}

/// A label value: empty, or ≤ 63 characters of the label-name alphabet.
fn validate_value(v: &str) -> Result<(), &'static str> {
    if v.len() > 63 {
        return Err("must be no more than 63 characters");
    }
    if !v.is_empty() && !is_label_name(v) {
        return Err("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
    }
    Ok(())
}

/// `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`
fn is_label_name(s: &str) -> bool {
    let b = s.as_bytes();
    let (Some(first), Some(last)) = (b.first(), b.last()) else {
        return false;
    };
    first.is_ascii_alphanumeric()
        && last.is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// RFC 1123 subdomain: ≤ 253 characters, dot-separated labels of lowercase alphanumerics
/// and '-', each starting and ending with an alphanumeric.
pub(crate) fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= 253
        && !s.is_empty()
        && s.split('.').all(|label| {
            let b = label.as_bytes();
            match (b.first(), b.last()) {
                (Some(f), Some(l)) => {
                    (f.is_ascii_lowercase() || f.is_ascii_digit())
                        && (l.is_ascii_lowercase() || l.is_ascii_digit())
                        && b.iter()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
                }
                _ => false,
            }
        })
}

impl fmt::Display for Selector {
    /// The canonical string form (`app=web,tier in (a,b)`), informational.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Selector::All(reqs) = self else {
            return f.write_str("<none>");
        };
        let parts: Vec<String> = reqs
            .iter()
            .map(|r| match r.op {
                Op::Equals => format!("{}={}", r.key, r.values.join(",")),
                Op::In => format!("{} in ({})", r.key, r.values.join(",")),
                Op::NotIn => format!("{} notin ({})", r.key, r.values.join(",")),
                Op::Exists => r.key.clone(),
                Op::DoesNotExist => format!("!{}", r.key),
            })
            .collect();
        f.write_str(&parts.join(","))
    }
}
