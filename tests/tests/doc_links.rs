//! Every relative link in README.md and docs/*.md resolves: the file or folder exists,
//! and a `#fragment` names a heading of the page it points to (GitHub's heading ids).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

mod repo;
use repo::{relative, root};

/// The pages checked: README.md and every Markdown file of docs/.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The page's lines outside fenced code blocks, with their numbers.
fn prose(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let marker: String = t.chars().take_while(|&c| c == '`' || c == '~').collect();
        if marker.len() >= 3 {
            match &fence {
                None => {
                    fence = Some(marker);
                    continue;
                }
                Some(open) if marker.starts_with(open.as_str()) && t.trim() == marker => {
                    fence = None;
                    continue;
                }
                Some(_) => {}
            }
        }
        if fence.is_none() {
            out.push((n + 1, line.to_string()));
        }
    }
    out
}

/// A line without its inline code spans (links inside backticks are not links).
fn without_code(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].chars().take_while(|&c| c == '`').count();
        let after = &rest[start + ticks..];
        let closing = "`".repeat(ticks);
        match after.find(&closing) {
            Some(end) => rest = &after[end + ticks..],
            None => {
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The targets of the inline links `[text](target)` / `![alt](target "title")` and of
/// the reference definitions `[name]: target` on one line.
fn targets(line: &str) -> Vec<String> {
    let line = without_code(line);
    let mut out = Vec::new();
    let trimmed = line.trim_start();
    if trimmed.starts_with('[') {
        if let Some(close) = trimmed.find("]:") {
            if let Some(target) = trimmed[close + 2..].split_whitespace().next() {
                out.push(target.trim_matches(['<', '>']).to_string());
                return out;
            }
        }
    }
    let mut rest = line.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = i;
                    break;
                }
                ')' => depth -= 1,
                _ => {}
            }
        }
        let inside = &after[..end];
        if let Some(target) = inside.split_whitespace().next() {
            out.push(target.trim_matches(['<', '>']).to_string());
        }
        rest = &after[end.min(after.len())..];
    }
    out
}

/// GitHub's id for a heading: lower case, punctuation other than `-` and `_` dropped,
/// spaces turned into `-`; a repeated id gets `-1`, `-2`, ….
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for (_, line) in prose(text) {
        let t = line.trim_start();
        let hashes = t.chars().take_while(|&c| c == '#').count();
        if hashes == 0 || hashes > 6 || !t[hashes..].starts_with(' ') {
            continue;
        }
        let title = t[hashes..].trim().trim_end_matches('#').trim();
        // Link syntax in a heading keeps only its text.
        let mut plain = String::new();
        let mut rest = title;
        while let Some(open) = rest.find('[') {
            plain.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            match (after.find("]("), after.find(')')) {
                (Some(close), Some(paren)) if paren > close => {
                    plain.push_str(&after[..close]);
                    rest = &after[paren + 1..];
                }
                _ => {
                    plain.push('[');
                    rest = after;
                }
            }
        }
        plain.push_str(rest);
        let slug: String = plain
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut id = slug.clone();
        let mut n = 1;
        while seen.contains(&id) {
            id = format!("{slug}-{n}");
            n += 1;
        }
        seen.insert(id);
    }
    seen
}

fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:") || target.starts_with("data:")
}

fn check(page: &Path, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let shown = relative(page);
    let dir = page.parent().unwrap_or(Path::new("."));
    for (n, line) in prose(text) {
        for target in targets(&line) {
            if target.is_empty() || is_external(&target) {
                continue;
            }
            let (path, fragment) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target.as_str(), None),
            };
            if path.is_empty() {
                if let Some(fragment) = fragment {
                    if !anchors(text).contains(fragment) {
                        problems.push(format!(
                            "{shown}:{n}: `{target}`: no heading with the id `{fragment}` on this page"
                        ));
                    }
                }
                continue;
            }
            let resolved = dir.join(path);
            if !resolved.exists() {
                problems.push(format!("{shown}:{n}: `{target}`: no such file or folder"));
                continue;
            }
            let Some(fragment) = fragment else {
                continue;
            };
            if resolved.extension().is_some_and(|e| e == "md") {
                let target_text = fs::read_to_string(&resolved).unwrap_or_default();
                if !anchors(&target_text).contains(fragment) {
                    problems.push(format!(
                        "{shown}:{n}: `{target}`: no heading with the id `{fragment}`"
                    ));
                }
            }
        }
    }
    problems
}

#[test]
fn every_relative_link_in_the_docs_resolves() {
    let mut problems = Vec::new();
    let mut links = 0;
    for page in pages() {
        let text = fs::read_to_string(&page).expect("page readable");
        links += prose(&text)
            .iter()
            .map(|(_, l)| targets(l).len())
            .sum::<usize>();
        problems.extend(check(&page, &text));
    }
    assert!(
        links > 20,
        "only {links} links found: is the parser reading the pages?"
    );
    assert!(
        problems.is_empty(),
        "{} broken links:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_link_check_can_fail() {
    let page = root().join("docs/example.md");
    let text = "\
# A page

## Second heading

[fine](../README.md) [same page](#second-heading) [gone](no-such-file.md)
[bad anchor](../README.md#no-such-heading) ![img](missing.png) `[code](ignored.md)`

```
[in a fence](also-ignored.md)
```

[ref]: missing-ref.md
";
    let problems = check(&page, text);
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert!(problems[0].contains("`no-such-file.md`: no such file"));
    assert!(problems[1].contains("no heading with the id `no-such-heading`"));
    assert!(problems[2].contains("`missing.png`"));
    assert!(problems[3].contains("`missing-ref.md`"));
}

#[test]
fn heading_ids_follow_github() {
    let ids = anchors(
        "# Replicore\n## The `replicore` command\n## Quick start\n## Quick start\n### What it is: a [link](x.md), 1.5 × kcm\n",
    );
    for id in [
        "replicore",
        "the-replicore-command",
        "quick-start",
        "quick-start-1",
        "what-it-is-a-link-15--kcm",
    ] {
        assert!(ids.contains(id), "{id} not in {ids:?}");
    }
}
