//! Every rule id the code cites resolves in `docs/rules.md`, and every id listed there is
//! cited by the code (directly or inside a cited range such as `R-70..R-74`); the file
//! named for each id exists and defines the item named beside it.
//!
//! The format of `docs/rules.md` is described at its top: table rows
//! `| id | rule | file | item |` under a heading per controller.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::Path;

mod repo;
use repo::{relative, root};

/// The rule-id families, longest first so that `EC-01` is not read as `C-01`. `H` is the
/// autoscaler's. The specifications' test facts (`HT-`, `RT-`) and traps (`T-`) are not
/// rules and are deliberately not here.
const FAMILIES: [&str; 7] = ["EC", "R", "D", "S", "E", "C", "H"];

/// The folders whose source is scanned for citations.
const SOURCE_DIRS: [&str; 9] = [
    "core", "sim", "wasm", "tools", "node", "web-demo", "tests", "fuzz", "examples",
];
const SOURCE_EXTENSIONS: [&str; 6] = ["rs", "ts", "tsx", "mjs", "cjs", "js"];
/// Folders never scanned: dependencies, build output, and the TypeScript generated from
/// the Rust types (it repeats their doc comments).
const SKIPPED_DIR_NAMES: [&str; 6] = [
    "node_modules",
    "target",
    "dist",
    "artifacts",
    "corpus",
    "generated",
];
/// This file holds example ids for its own unit tests.
const SELF: &str = "tests/tests/rule_index.rs";

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct RuleId {
    family: String,
    number: u32,
    suffix: Option<char>,
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Numbers are compared as numbers; the text keeps the width the code uses most.
        let width = match self.family.as_str() {
            "S" | "C" => 1,
            _ => 2,
        };
        write!(f, "{}-{:0width$}", self.family, self.number, width = width)?;
        if let Some(c) = self.suffix {
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Cite {
    One(RuleId),
    Range(RuleId, RuleId),
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The id starting at `at` (which must start a word), and where it ends.
fn id_at(text: &[u8], at: usize) -> Option<(RuleId, usize)> {
    if at > 0 && is_word(text[at - 1]) {
        return None;
    }
    for family in FAMILIES {
        let f = family.as_bytes();
        let rest = text.get(at..)?;
        if !rest.starts_with(f) || rest.get(f.len()) != Some(&b'-') {
            continue;
        }
        let digits_at = at + f.len() + 1;
        let mut end = digits_at;
        while end < text.len() && text[end].is_ascii_digit() {
            end += 1;
        }
        if end == digits_at {
            return None;
        }
        let number: u32 = std::str::from_utf8(&text[digits_at..end])
            .ok()?
            .parse()
            .ok()?;
        let mut suffix = None;
        if end < text.len() && text[end].is_ascii_lowercase() {
            suffix = Some(text[end] as char);
            end += 1;
        }
        if end < text.len() && is_word(text[end]) {
            return None;
        }
        let id = RuleId {
            family: family.to_string(),
            number,
            suffix,
        };
        return Some((id, end));
    }
    None
}

/// Every id cited in `text`; `X-a..X-b` or `X-a–X-b` (same family) is a range.
fn cites(text: &str) -> Vec<Cite> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let Some((id, end)) = id_at(bytes, i) else {
            i += 1;
            continue;
        };
        // A range: `..` or an en dash between two ids of one family.
        let separator = [&b".."[..], "–".as_bytes()]
            .into_iter()
            .find(|sep| bytes.get(end..end + sep.len()) == Some(*sep));
        if let Some(sep) = separator {
            if let Some((last, after)) = id_at(bytes, end + sep.len()) {
                if last.family == id.family {
                    out.push(Cite::Range(id, last));
                    i = after;
                    continue;
                }
            }
        }
        out.push(Cite::One(id));
        i = end;
    }
    out
}

/// Folders not scanned: hidden ones, those of `SKIPPED_DIR_NAMES`, and the wasm-bindgen
/// build output in node/src/wasm*/ and node/src/*.small/.
fn skipped(dir: &Path) -> bool {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.starts_with('.')
        || SKIPPED_DIR_NAMES.contains(&name.as_str())
        || relative(dir).starts_with("node/src/wasm")
        || name.ends_with(".small")
}

/// Ids cited by the code: each with the first place that cites it; and the ranges.
fn code_cites() -> (BTreeMap<RuleId, String>, Vec<(RuleId, RuleId)>) {
    let mut files = Vec::new();
    for dir in SOURCE_DIRS {
        files.extend(
            repo::files(&root().join(dir), &SOURCE_EXTENSIONS, &skipped)
                .into_iter()
                .filter(|f| relative(f) != SELF),
        );
    }
    assert!(
        files.len() > 100,
        "scanned only {} source files: is the scanner looking in the right place?",
        files.len()
    );
    let mut ids = BTreeMap::new();
    let mut ranges = Vec::new();
    for file in files {
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            for cite in cites(line) {
                let at = format!("{}:{}", relative(&file), n + 1);
                match cite {
                    Cite::One(id) => {
                        ids.entry(id).or_insert(at);
                    }
                    Cite::Range(first, last) => {
                        ids.entry(first.clone()).or_insert_with(|| at.clone());
                        ids.entry(last.clone()).or_insert(at);
                        ranges.push((first, last));
                    }
                }
            }
        }
    }
    (ids, ranges)
}

#[derive(Debug)]
struct Entry {
    line: usize,
    file: String,
    item: String,
}

fn unticked(cell: &str) -> String {
    cell.trim().trim_matches('`').trim().to_string()
}

/// The rows of the index: `| id | rule | file | item |`, a row being any table line
/// outside fenced blocks whose first cell is exactly one id. Duplicates and malformed rows are reported as problems.
fn index(text: &str, problems: &mut Vec<String>) -> BTreeMap<RuleId, Entry> {
    let mut rows = BTreeMap::new();
    let mut in_fence = false;
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        // The example row in the page's fenced block is not an entry.
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let Some(inner) = line.trim().strip_prefix('|') else {
            continue;
        };
        let cells: Vec<&str> = inner.trim_end_matches('|').split('|').collect();
        let first = cells.first().map(|c| c.trim()).unwrap_or("");
        let Some((id, end)) = id_at(first.as_bytes(), 0) else {
            continue;
        };
        if end != first.len() {
            continue;
        }
        if cells.len() != 4 {
            problems.push(format!(
                "docs/rules.md:{line_no}: {id}: a row has 4 cells (id, rule, file, item), found {}",
                cells.len()
            ));
            continue;
        }
        if cells[1].trim().is_empty() {
            problems.push(format!(
                "docs/rules.md:{line_no}: {id}: the rule is not stated"
            ));
        }
        let entry = Entry {
            line: line_no,
            file: unticked(cells[2]),
            item: unticked(cells[3]),
        };
        if let Some(first) = rows.get(&id) {
            let first: &Entry = first;
            problems.push(format!(
                "docs/rules.md:{line_no}: {id} is listed twice (first at line {})",
                first.line
            ));
            continue;
        }
        rows.insert(id, entry);
    }
    rows
}

/// Does `source` define `name` (a function, type, constant, module, or in TypeScript a
/// function, class or const)?
fn defines(source: &str, name: &str) -> bool {
    const KEYWORDS: [&str; 10] = [
        "fn", "struct", "enum", "const", "static", "type", "trait", "mod", "function", "class",
    ];
    let bytes = source.as_bytes();
    let mut from = 0;
    while let Some(found) = source[from..].find(name) {
        let at = from + found;
        let end = at + name.len();
        from = end;
        if (at > 0 && is_word(bytes[at - 1])) || bytes.get(end).copied().is_some_and(is_word) {
            continue;
        }
        let before = source[..at].trim_end_matches([' ', '\t']);
        if KEYWORDS.iter().any(|k| {
            before.ends_with(k)
                && !before[..before.len() - k.len()]
                    .ends_with(|c: char| c.is_alphanumeric() || c == '_')
        }) {
            return true;
        }
    }
    false
}

fn check(text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let rows = index(text, &mut problems);
    let (cited, ranges) = code_cites();
    for (id, at) in &cited {
        if !rows.contains_key(id) {
            problems.push(format!(
                "{at} cites {id}, which docs/rules.md does not list: add a row for it"
            ));
        }
    }
    let in_range = |id: &RuleId| {
        ranges
            .iter()
            .any(|(a, b)| a.family == id.family && a.number <= id.number && id.number <= b.number)
    };
    for (id, entry) in &rows {
        if !cited.contains_key(id) && !in_range(id) {
            problems.push(format!(
                "docs/rules.md:{}: {id} is cited nowhere in the code: remove its row",
                entry.line
            ));
        }
        let path = root().join(&entry.file);
        match fs::read_to_string(&path) {
            Err(_) => problems.push(format!(
                "docs/rules.md:{}: {id}: the file `{}` does not exist",
                entry.line, entry.file
            )),
            Ok(source) => {
                let name = entry.item.rsplit("::").next().unwrap_or("");
                if name.is_empty() || !defines(&source, name) {
                    problems.push(format!(
                        "docs/rules.md:{}: {id}: `{}` defines no `{}`",
                        entry.line, entry.file, entry.item
                    ));
                }
            }
        }
    }
    problems
}

#[test]
fn every_cited_rule_id_resolves_in_the_index() {
    let path = root().join("docs/rules.md");
    let text = fs::read_to_string(&path).expect("docs/rules.md is present");
    let problems = check(&text);
    assert!(
        problems.is_empty(),
        "docs/rules.md and the code disagree ({} problems):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_index_names_its_families() {
    // Each family the scanner reads has at least the heading its rows go under; the
    // autoscaler's rows go under "Autoscaler".
    let text = fs::read_to_string(root().join("docs/rules.md")).expect("docs/rules.md");
    for heading in [
        "## ReplicaSet controller",
        "## Deployment controller",
        "## Autoscaler",
    ] {
        assert!(
            text.lines().any(|l| l.trim() == heading),
            "docs/rules.md has no `{heading}` heading"
        );
    }
}

fn id(family: &str, number: u32) -> RuleId {
    RuleId {
        family: family.to_string(),
        number,
        suffix: None,
    }
}

#[test]
fn the_scanner_reads_ids_and_ranges_and_nothing_else() {
    assert_eq!(
        cites("R-72 ranks; (D-51/D-54) and R-91b, EC-02, H-07."),
        vec![
            Cite::One(id("R", 72)),
            Cite::One(id("D", 51)),
            Cite::One(id("D", 54)),
            Cite::One(RuleId {
                family: "R".into(),
                number: 91,
                suffix: Some('b'),
            }),
            Cite::One(id("EC", 2)),
            Cite::One(id("H", 7)),
        ]
    );
    assert_eq!(
        cites("rules R-70..R-74, S-1..S-15, H-40–H-45, R-01..D-02"),
        vec![
            Cite::Range(id("R", 70), id("R", 74)),
            Cite::Range(id("S", 1), id("S", 15)),
            Cite::Range(id("H", 40), id("H", 45)),
            Cite::One(id("R", 1)),
            Cite::One(id("D", 2)),
        ]
    );
    // Test facts, traps, and names that only look like ids.
    assert_eq!(
        cites("HT-12 RT-03 T-07 UTF-8 FNV-1a DNS-1123 KEP-5647 RFC-3339 x_R-01 R-01ab R-01X R-"),
        vec![]
    );
    assert_eq!(id("R", 4).to_string(), "R-04");
    assert_eq!(id("S", 4).to_string(), "S-4");
}

#[test]
fn the_check_fails_on_each_kind_of_drift() {
    let good = "| R-72 | The order. | `core/src/replicaset/rank/rule.rs` | `decide` |\n";
    // A row whose id no code cites (R-99 does not exist), a missing file, a missing
    // item, a duplicate, a row of the wrong shape.
    let bad = "\
| R-99 | Nothing. | `core/src/replicaset/rank/rule.rs` | `decide` |
| R-70 | Gone. | `core/src/no_such_file.rs` | `f` |
| R-71 | Renamed. | `core/src/replicaset/rank/rule.rs` | `no_such_item` |
| R-72 | Twice. | `core/src/replicaset/rank/rule.rs` | `decide` |
| R-73 | Short. | `core/src/api/time.rs` |
";
    let problems = check(&format!("{good}{bad}"));
    let has = |needle: &str| problems.iter().any(|p| p.contains(needle));
    assert!(has("R-99 is cited nowhere"), "{problems:?}");
    assert!(has("no_such_file.rs` does not exist"), "{problems:?}");
    assert!(has("defines no `no_such_item`"), "{problems:?}");
    assert!(has("R-72 is listed twice"), "{problems:?}");
    assert!(has("R-73: a row has 4 cells"), "{problems:?}");
    // And every id the code cites but this small index lacks.
    assert!(
        has("cites R-01, which docs/rules.md does not list"),
        "{problems:?}"
    );
}

#[test]
fn defines_finds_definitions_only() {
    let src = "pub(crate) fn decide(a: u8) {}\nlet x = refund(decide);\nconst LIMIT: u8 = 1;\nexport function keysFor() {}\n";
    assert!(defines(src, "decide"));
    assert!(defines(src, "LIMIT"));
    assert!(defines(src, "keysFor"));
    assert!(!defines(src, "x"));
    assert!(!defines(src, "fund"));
}
