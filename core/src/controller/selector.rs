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
    /// `key>N` (string selectors only): the label's value as an int64 is greater.
    GreaterThan,
    /// `key<N` (string selectors only).
    LessThan,
}

#[derive(Clone, Debug, PartialEq, Eq)]
/// One requirement of a selector: a key, an operator and values.
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
        use crate::replicaset::digest::same_bytes;
        self.matches_lookup(|key| {
            let l = labels?;
            // A pod's few labels are scanned with the inline comparison (no `memcmp`
            // call per key); a large map is searched.
            let value = if l.len() <= 8 {
                l.iter()
                    .find(|(k, _)| same_bytes(k.as_bytes(), key.as_bytes()))
                    .map(|(_, v)| v)
            } else {
                l.get(key)
            };
            value.map(String::as_bytes)
        })
    }

    /// [`Selector::matches`] on the labels a pod's digest holds.
    pub(crate) fn matches_digest(&self, labels: crate::replicaset::digest::Labels<'_>) -> bool {
        use crate::replicaset::digest::same_bytes;
        self.matches_lookup(|key| {
            labels
                .clone()
                .find(|(k, _)| same_bytes(k, key.as_bytes()))
                .map(|(_, v)| v)
        })
    }

    /// R-12 over any label set, given the value of a key (`None`: the label is absent).
    pub(crate) fn matches_lookup<'l>(&self, value_of: impl Fn(&str) -> Option<&'l [u8]>) -> bool {
        match self {
            Selector::Nothing => false,
            Selector::All(reqs) => reqs.iter().all(|r| r.matches_value(value_of(&r.key))),
        }
    }

    /// `{}`: the selector that matches every label set.
    pub fn is_everything(&self) -> bool {
        matches!(self, Selector::All(r) if r.is_empty())
    }

    /// A nil selector, which matches nothing.
    pub fn is_nothing(&self) -> bool {
        matches!(self, Selector::Nothing)
    }
}

impl Requirement {
    /// Given the value of the requirement's key (`None`: the label is absent).
    fn matches_value(&self, value: Option<&[u8]>) -> bool {
        use crate::replicaset::digest::same_bytes;
        if matches!(self.op, Op::GreaterThan | Op::LessThan) {
            return self.compares(value);
        }
        self.holds(value.map(|v| self.values.iter().any(|x| same_bytes(x.as_bytes(), v))))
    }

    /// `Gt`/`Lt`: the label is present, both sides read as int64, and compare so.
    fn compares(&self, value: Option<&[u8]>) -> bool {
        let int = |b: &[u8]| std::str::from_utf8(b).ok()?.parse::<i64>().ok();
        let (Some(have), Some(want)) = (
            value.and_then(int),
            self.values.first().and_then(|v| int(v.as_bytes())),
        ) else {
            return false;
        };
        if self.op == Op::GreaterThan {
            have > want
        } else {
            have < want
        }
    }

    /// Given whether the key is present and, if so, whether its value is among the
    /// requirement's values.
    fn holds(&self, value_listed: Option<bool>) -> bool {
        match self.op {
            Op::Equals | Op::In => value_listed == Some(true),
            Op::NotIn => value_listed != Some(true),
            Op::Exists => value_listed.is_some(),
            Op::DoesNotExist => value_listed.is_none(),
            Op::GreaterThan | Op::LessThan => false,
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
                Op::GreaterThan => format!("{}>{}", r.key, r.values.join(",")),
                Op::LessThan => format!("{}<{}", r.key, r.values.join(",")),
            })
            .collect();
        f.write_str(&parts.join(","))
    }
}

/// Why a selector string does not parse (upstream `labels.Parse`), in upstream's words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SelectorParseError(pub String);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    Error,
    End,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

fn symbol(text: &str) -> Option<Token> {
    Some(match text {
        ")" => Token::ClosedPar,
        "," => Token::Comma,
        "!" => Token::DoesNotExist,
        "==" => Token::DoubleEquals,
        "=" => Token::Equals,
        ">" => Token::GreaterThan,
        "in" => Token::In,
        "<" => Token::LessThan,
        "!=" => Token::NotEquals,
        "notin" => Token::NotIn,
        "(" => Token::OpenPar,
        _ => return None,
    })
}

fn is_special(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// upstream's label-selector lexer: every token with its text, then the end.
fn lex(s: &str) -> Vec<(Token, String)> {
    let b = s.as_bytes();
    let mut pos = 0;
    let mut out = Vec::new();
    loop {
        while b.get(pos).is_some_and(|&c| is_space(c)) {
            pos += 1;
        }
        let Some(&c) = b.get(pos) else {
            out.push((Token::End, String::new()));
            return out;
        };
        let start = pos;
        if is_special(c) {
            // The longest run of symbols that is still a token.
            let mut last: Option<(Token, usize)> = None;
            while let Some(&d) = b.get(pos) {
                if !is_special(d) {
                    break;
                }
                pos += 1;
                match symbol(s.get(start..pos).unwrap_or("")) {
                    Some(t) => last = Some((t, pos)),
                    None if last.is_some() => {
                        pos -= 1;
                        break;
                    }
                    None => {}
                }
            }
            match last {
                Some((t, end)) => {
                    pos = end;
                    out.push((t, s.get(start..end).unwrap_or("").to_owned()));
                }
                None => out.push((
                    Token::Error,
                    format!(
                        "error expected: keyword found '{}'",
                        s.get(start..pos).unwrap_or("")
                    ),
                )),
            }
        } else {
            while b.get(pos).is_some_and(|&d| !is_special(d) && !is_space(d)) {
                pos += 1;
            }
            let text = s.get(start..pos).unwrap_or("").to_owned();
            let tok = match symbol(&text) {
                Some(t) => t,
                None => Token::Identifier,
            };
            out.push((tok, text));
        }
    }
}

struct Parser {
    items: Vec<(Token, String)>,
    at: usize,
}

impl Parser {
    /// The token at the cursor; in a value context `in`/`notin` are identifiers.
    fn peek(&self, values: bool) -> (Token, String) {
        let (t, l) = self
            .items
            .get(self.at)
            .cloned()
            .unwrap_or((Token::End, String::new()));
        (Self::as_value(t, values), l)
    }

    fn next(&mut self, values: bool) -> (Token, String) {
        let item = self.peek(values);
        self.at += 1;
        item
    }

    fn as_value(t: Token, values: bool) -> Token {
        if values && matches!(t, Token::In | Token::NotIn) {
            Token::Identifier
        } else {
            t
        }
    }

    fn requirement(&mut self) -> Result<Requirement, String> {
        let (mut tok, mut key) = self.next(true);
        let mut op = None;
        if tok == Token::DoesNotExist {
            op = Some(Op::DoesNotExist);
            (tok, key) = self.next(true);
        }
        if tok != Token::Identifier {
            return Err(format!("found '{key}', expected: identifier"));
        }
        validate_key(&key).map_err(|e| e.0)?;
        let (after, _) = self.peek(true);
        if matches!(after, Token::End | Token::Comma) {
            let op = op.unwrap_or(Op::Exists);
            return requirement(&key, op, &[]).map_err(|e| e.0);
        }
        if op == Some(Op::DoesNotExist) {
            return requirement(&key, Op::DoesNotExist, &[]).map_err(|e| e.0);
        }
        let (tok, lit) = self.next(false);
        let op = match tok {
            Token::In => Op::In,
            Token::Equals | Token::DoubleEquals => Op::Equals,
            Token::GreaterThan => Op::GreaterThan,
            Token::LessThan => Op::LessThan,
            Token::NotIn => Op::NotIn,
            Token::NotEquals => Op::NotIn,
            _ => {
                return Err(format!(
                    "found '{lit}', expected: in, notin, =, ==, !=, gt, lt"
                ))
            }
        };
        let mut values = match op {
            Op::In | Op::NotIn if tok != Token::NotEquals => self.value_set()?,
            _ => self.exact_value()?,
        };
        crate::sort::sort(&mut values);
        values.dedup();
        if matches!(op, Op::GreaterThan | Op::LessThan) {
            if values.len() != 1 || values.iter().any(|v| v.parse::<i64>().is_err()) {
                return Err(
                    "for 'Gt', 'Lt' operators, exactly one integer value is required".into(),
                );
            }
            return Ok(Requirement { key, op, values });
        }
        requirement(&key, op, &values).map_err(|e| e.0)
    }

    fn value_set(&mut self) -> Result<Vec<String>, String> {
        let (tok, lit) = self.next(true);
        if tok != Token::OpenPar {
            return Err(format!("found '{lit}' expected: '('"));
        }
        let (tok, lit) = self.peek(true);
        match tok {
            Token::Identifier | Token::Comma => {
                let set = self.identifiers()?;
                if self.next(true).0 != Token::ClosedPar {
                    return Err(format!("found '{lit}', expected: ')'"));
                }
                Ok(set)
            }
            Token::ClosedPar => {
                self.next(true);
                Ok(vec![String::new()])
            }
            _ => Err(format!("found '{lit}', expected: ',', ')' or identifier")),
        }
    }

    fn identifiers(&mut self) -> Result<Vec<String>, String> {
        let mut set: Vec<String> = Vec::new();
        loop {
            let (tok, lit) = self.next(true);
            match tok {
                Token::Identifier => {
                    set.push(lit);
                    let (t2, l2) = self.peek(true);
                    match t2 {
                        Token::Comma => continue,
                        Token::ClosedPar => return Ok(set),
                        _ => return Err(format!("found '{l2}', expected: ',' or ')'")),
                    }
                }
                Token::Comma => {
                    if set.is_empty() {
                        set.push(String::new());
                    }
                    let (t2, _) = self.peek(true);
                    if t2 == Token::ClosedPar {
                        set.push(String::new());
                        return Ok(set);
                    }
                    if t2 == Token::Comma {
                        set.push(String::new());
                    }
                }
                _ => return Err(format!("found '{lit}', expected: ',', or identifier")),
            }
        }
    }

    fn exact_value(&mut self) -> Result<Vec<String>, String> {
        let (tok, _) = self.peek(true);
        if matches!(tok, Token::End | Token::Comma) {
            return Ok(vec![String::new()]);
        }
        let (tok, lit) = self.next(true);
        if tok == Token::Identifier {
            return Ok(vec![lit]);
        }
        Err(format!("found '{lit}', expected: identifier"))
    }
}

impl Selector {
    /// upstream `labels.Parse`: the string form (`app=web,tier in (a,b),!canary`). The
    /// empty string selects everything.
    pub fn parse(text: &str) -> Result<Selector, SelectorParseError> {
        let mut p = Parser {
            items: lex(text),
            at: 0,
        };
        let mut reqs = Vec::new();
        loop {
            let (tok, lit) = p.peek(true);
            match tok {
                Token::Identifier | Token::DoesNotExist => {
                    let r = p.requirement().map_err(|e| {
                        SelectorParseError(format!("unable to parse requirement: {e}"))
                    })?;
                    reqs.push(r);
                    let (t, l) = p.next(true);
                    match t {
                        Token::End => break,
                        Token::Comma => {
                            let (t2, l2) = p.peek(true);
                            if !matches!(t2, Token::Identifier | Token::DoesNotExist) {
                                return Err(SelectorParseError(format!(
                                    "found '{l2}', expected: identifier after ','"
                                )));
                            }
                        }
                        _ => {
                            return Err(SelectorParseError(format!(
                                "found '{l}', expected: ',' or 'end of string'"
                            )))
                        }
                    }
                }
                Token::End => break,
                _ => {
                    return Err(SelectorParseError(format!(
                        "found '{lit}', expected: !, identifier, or 'end of string'"
                    )))
                }
            }
        }
        crate::sort::sort_by(&mut reqs, |a, b| a.key.cmp(&b.key));
        Ok(Selector::All(reqs))
    }
}

#[cfg(test)]
mod parse_tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> StringMap {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn string_selectors_match_as_upstream_parses_them() {
        let s = Selector::parse("app=web,tier in (a,b),!canary").unwrap();
        assert!(s.matches(Some(&labels(&[("app", "web"), ("tier", "a")]))));
        assert!(!s.matches(Some(&labels(&[
            ("app", "web"),
            ("tier", "a"),
            ("canary", "1")
        ]))));
        assert!(Selector::parse("").unwrap().is_everything());
        let gt = Selector::parse("rank>3").unwrap();
        assert!(gt.matches(Some(&labels(&[("rank", "4")]))));
        assert!(!gt.matches(Some(&labels(&[("rank", "3")]))));
        let ne = Selector::parse("app!=web").unwrap();
        assert!(ne.matches(Some(&labels(&[]))));
        assert!(!ne.matches(Some(&labels(&[("app", "web")]))));
    }

    #[test]
    fn unparsable_selectors_say_what_upstream_says() {
        assert_eq!(
            Selector::parse("app in (web").unwrap_err().0,
            "unable to parse requirement: found '', expected: ',' or ')'"
        );
        assert_eq!(
            Selector::parse("cheddar cheese").unwrap_err().0,
            "unable to parse requirement: found 'cheese', expected: in, notin, =, ==, !=, gt, lt"
        );
    }

    /// A pod's labels are scanned when there are few and searched when there are many:
    /// both ways give the same verdicts (the label last in order, a missing one, a
    /// value among several, a value of another length).
    #[test]
    fn few_and_many_labels_match_alike() {
        for extra in [0usize, 3, 7, 8, 12] {
            let mut labels: StringMap = (0..extra)
                .map(|i| (format!("k{i:02}"), format!("v{i}")))
                .collect();
            labels.insert("zz".into(), "web".into());
            let cases = [
                ("zz=web", true),
                ("zz=we", false),
                ("zz=webx", false),
                ("zz in (api,web)", true),
                ("zz notin (api,web)", false),
                ("zz!=api", true),
                ("zz", true),
                ("!zz", false),
                ("absent", false),
                ("!absent", true),
                ("absent=web", false),
            ];
            for (text, want) in cases {
                let sel = Selector::parse(text).unwrap();
                assert_eq!(
                    sel.matches(Some(&labels)),
                    want,
                    "{text} over {} labels",
                    extra + 1
                );
            }
        }
    }
}
