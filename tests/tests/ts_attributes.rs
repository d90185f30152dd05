//! The serde attributes ts-rs cannot read are silenced (`no-serde-warnings` on the
//! `ts-rs` dependency of `core/Cargo.toml`, where the reason is written). This test keeps
//! that silence exact: on a type that derives `ts_rs::TS` (the TypeScript declarations
//! of `node/src/generated/`), every serde attribute key is one ts-rs reads, or one of the
//! few it ignores for a stated reason. A new attribute that would change the JSON written
//! without ts-rs seeing it (say a `serialize_with` to another shape, or `into`) fails here
//! instead of passing unnoticed.

use std::fs;

mod repo;
use repo::{relative, root};

/// The keys ts-rs 12 reads (its container, variant and field parsers).
const READ_BY_TS_RS: [&str; 17] = [
    "rename",
    "rename_all",
    "rename_all_fields",
    "tag",
    "content",
    "untagged",
    "bound",
    "crate",
    "deny_unknown_fields",
    "default",
    "skip",
    "skip_serializing_if",
    "skip_serializing",
    "flatten",
    "borrow",
    "with",
    "expecting",
];

/// Keys ts-rs ignores that cannot change a declaration, and why.
const IGNORED_WITH_A_REASON: [(&str, &str); 6] = [
    (
        "deserialize_with",
        "how input is read; the JSON written is unchanged",
    ),
    ("alias", "another name accepted when reading"),
    (
        "skip_deserializing",
        "a field not read back; the JSON written, which the declaration describes, has it",
    ),
    ("from", "a wire form read, then converted"),
    ("try_from", "a wire form read, then converted"),
    (
        "transparent",
        "a newtype, which ts-rs declares as its inner type anyway",
    ),
];

/// `serialize_with` functions whose output is what the field's TypeScript type says.
const SERIALIZERS_MATCHING_THE_DECLARATION: [&str; 2] = [
    // `Option<Time>` as an RFC 3339 string or null: `Time` is declared `string`.
    "time::serialize_opt",
    // A float written as a string, on a field declared `ts(type = "string")`.
    "f64_text",
];

/// The text of the `serde(...)` argument lists in `text` (attributes may span lines).
fn serde_lists(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("serde(") {
        let start = from + found + "serde(".len();
        let preceded = text[..from + found]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        let mut depth = 1;
        let mut in_string = false;
        let mut end = start;
        for (i, c) in text[start..].char_indices() {
            match c {
                '"' => in_string = !in_string,
                '(' if !in_string => depth += 1,
                ')' if !in_string => {
                    depth -= 1;
                    if depth == 0 {
                        end = start + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        if !preceded && end > start {
            out.push(text[start..end].to_string());
        }
        from = end.max(start);
    }
    out
}

/// `(key, value)` of each top-level item of a serde argument list.
fn keys(list: &str) -> Vec<(String, String)> {
    let mut items = Vec::new();
    let mut depth = 0;
    let mut in_string = false;
    let mut current = String::new();
    for c in list.chars() {
        match c {
            '"' => in_string = !in_string,
            '(' if !in_string => depth += 1,
            ')' if !in_string => depth -= 1,
            ',' if !in_string && depth == 0 => {
                items.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    items.push(current);
    items
        .iter()
        .map(|i| i.trim())
        .filter(|i| !i.is_empty())
        .map(|i| {
            let key: String = i
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let value = i
                .split_once('=')
                .map(|(_, v)| v.trim().trim_matches('"').to_string())
                .unwrap_or_default();
            (key, value)
        })
        .collect()
}

/// The attribute blocks of the items that derive `ts_rs::TS`: the item's own attributes
/// and its body, as text, with the line the item starts on.
fn ts_items(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut items = Vec::new();
    let mut attrs_from: Option<usize> = None;
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        if t.starts_with("#[") || t.starts_with("///") || t.starts_with("//") {
            attrs_from.get_or_insert(i);
            // An attribute over several lines: up to its closing bracket.
            if t.starts_with("#[") {
                let mut depth: i32 = 0;
                let mut j = i;
                loop {
                    depth += lines[j].matches('[').count() as i32;
                    depth -= lines[j].matches(']').count() as i32;
                    if depth <= 0 || j + 1 >= lines.len() {
                        break;
                    }
                    j += 1;
                }
                i = j + 1;
            } else {
                i += 1;
            }
            continue;
        }
        let is_item = ["struct ", "enum "].iter().any(|k| {
            t.starts_with(k) || t.starts_with(&format!("pub {k}")) || t.contains(&format!(") {k}"))
        });
        if let (true, Some(from)) = (is_item, attrs_from) {
            let head = lines[from..i].join("\n");
            // The body: to the brace that closes the item, or the line's `;`.
            let mut end = i;
            let mut depth: i32 = 0;
            let mut opened = false;
            for (j, line) in lines.iter().enumerate().skip(i) {
                depth += line.matches('{').count() as i32;
                opened |= depth > 0;
                depth -= line.matches('}').count() as i32;
                end = j;
                if (opened && depth <= 0) || (!opened && line.trim_end().ends_with(';')) {
                    break;
                }
            }
            if head.contains("ts_rs::TS") {
                items.push((from + 1, format!("{head}\n{}", lines[i..=end].join("\n"))));
            }
            attrs_from = None;
            i = end + 1;
            continue;
        }
        attrs_from = None;
        i += 1;
    }
    items
}

fn check(file: &str, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for (line, item) in ts_items(text) {
        for list in serde_lists(&item) {
            for (key, value) in keys(&list) {
                let fine = READ_BY_TS_RS.contains(&key.as_str())
                    || IGNORED_WITH_A_REASON.iter().any(|(k, _)| *k == key)
                    || (key == "serialize_with"
                        && SERIALIZERS_MATCHING_THE_DECLARATION.contains(&value.as_str()));
                if !fine {
                    problems.push(format!(
                        "{file}:{line}: a type deriving ts_rs::TS has #[serde({key} ...)], which \
                         ts-rs cannot read and no longer warns about: express it in a ts \
                         attribute, or add it to this test's list with the reason it leaves \
                         the declaration right"
                    ));
                }
            }
        }
    }
    problems
}

#[test]
fn boundary_types_use_only_serde_attributes_ts_rs_reads_or_that_are_harmless() {
    let mut files = repo::files(&root().join("core/src"), &["rs"], &|_| false);
    files.extend(repo::files(&root().join("sim/src"), &["rs"], &|_| false));
    let mut items = 0;
    let mut problems = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).expect("source readable");
        let shown = relative(&file);
        items += ts_items(&text).len();
        problems.extend(check(&shown, &text));
    }
    assert!(
        items > 50,
        "found only {items} types deriving ts_rs::TS: is the scanner reading the items?"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_scan_can_fail() {
    let text = r#"
/// A boundary type.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", into = "Wire")]
pub struct A {
    #[serde(
        default,
        serialize_with = "somewhere::else",
        deserialize_with = "crate::objects::objects"
    )]
    pub b: Vec<String>,
    #[serde(alias = "c2", serialize_with = "time::serialize_opt")]
    pub c: Option<Time>,
}

#[derive(Serialize)]
#[serde(into = "NotTs")]
pub struct NotBoundary(u8);
"#;
    let problems = check("x.rs", text);
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(problems[0].contains("#[serde(into"));
    assert!(problems[1].contains("#[serde(serialize_with"));
}
