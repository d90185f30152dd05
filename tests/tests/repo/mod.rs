//! What the repository checks (`rule_index`, `doc_links`, `ts_attributes`) share: where
//! the repository is, and its files.

use std::fs;
use std::path::{Path, PathBuf};

/// The repository's root: the tests crate's parent folder.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the repository")
        .to_path_buf()
}

/// `path` relative to the root, with `/` separators.
pub fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The files below `dir` whose extension is one of `extensions`, in name order, not
/// descending into the folders `skip` refuses (given the folder's path).
#[allow(dead_code)] // doc_links reads one folder only.
pub fn files(dir: &Path, extensions: &[&str], skip: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, extensions, skip, &mut out);
    out
}

fn walk(dir: &Path, extensions: &[&str], skip: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if !skip(&path) {
                walk(&path, extensions, skip, out);
            }
        } else if path
            .extension()
            .is_some_and(|e| extensions.contains(&e.to_string_lossy().as_ref()))
        {
            out.push(path);
        }
    }
}
