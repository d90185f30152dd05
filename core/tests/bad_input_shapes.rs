//! Bad input that used to take quadratic time to refuse (issue 18, point 3): deep
//! nesting in a field the engine skips, and long nested keys before a type error. The
//! time is measured by the `refuse/…` benchmarks; these tests pin what the refusal says.

#[path = "shapes/mod.rs"]
mod shapes;

use replicore::explain::{explain_json, ExplainOptions};
use replicore::{Error, SyncInput, Time};

fn refused(text: &[u8]) -> Error {
    SyncInput::from_json(text).expect_err("bad input must be refused")
}

fn explain_options() -> ExplainOptions {
    ExplainOptions::at(
        Time::parse("2026-11-21T04:40:12Z")
            .ok()
            .flatten()
            .expect("a time"),
    )
}

#[test]
fn deep_nesting_in_a_skipped_field_is_refused_at_the_bad_field() {
    for size in [10_000, 100_000, 1_000_000] {
        let text = shapes::deep_nesting(size);
        let err = refused(&text);
        assert_eq!((err.code(), err.path()), ("MALFORMED", "now"), "{size}");
        assert_eq!(
            err.to_string(),
            "now: invalid type: integer `1`, expected an RFC 3339 timestamp"
        );
    }
}

#[test]
fn long_nested_keys_before_a_type_error_are_refused_at_the_bad_field() {
    for size in [10_000, 100_000, 1_000_000] {
        let text = shapes::long_nested_keys(size);
        let err = refused(&text);
        assert_eq!(
            (err.code(), err.path()),
            ("MALFORMED", "cacheIsFresh"),
            "{size}"
        );
        // Without the type error the same text is valid.
        let fixed =
            String::from_utf8_lossy(&text).replace("\"cacheIsFresh\":1", "\"cacheIsFresh\":true");
        assert!(SyncInput::from_json(fixed.as_bytes()).is_ok(), "{size}");
    }
}

/// The path of an error deeper than 128 levels names the first 128 and ends in `…`.
#[test]
fn a_path_deeper_than_128_levels_is_cut_short() {
    let mut text = shapes::deep_nesting(100_000);
    // Unclosed: the reader runs out of text 49,992 arrays deep.
    text.truncate(5 + 49_992);
    let err = refused(&text);
    assert_eq!(err.code(), "SYNTAX");
    let expected = format!("a{}…", "[0]".repeat(127));
    assert_eq!(err.path(), expected);
    assert!(
        err.to_string()
            .ends_with("…: EOF while parsing a list at line 1 column 49997"),
        "{err}"
    );
}

/// A key longer than 200 characters is cut in the path, with `…`.
#[test]
fn a_long_key_is_cut_short_in_the_path() {
    let key = "k".repeat(5_000_000);
    let text = format!(r#"{{"owner": {{"metadata": {{"labels": {{"{key}": 1}}}}}}}}"#);
    let err = refused(text.as_bytes());
    assert_eq!(err.code(), "MALFORMED");
    assert_eq!(
        err.path(),
        format!("owner.metadata.labels.{}…", "k".repeat(200))
    );
}

#[test]
fn explain_refuses_the_shapes_at_the_bad_field() {
    let options = explain_options();
    // serde_json reads a whole document into a value at most 128 levels deep (the
    // document and `a` are two).
    let err = explain_json(&shapes::deep_nesting(100_000), &options).expect_err("deep");
    assert_eq!(err.code(), "SYNTAX");
    assert_eq!(err.path(), format!("a{}", "[0]".repeat(126)));
    assert!(
        err.to_string().contains("recursion limit exceeded"),
        "{err}"
    );
    // A List whose item has long nested keys and a type error.
    let keys = shapes::long_nested_keys(100_000);
    let mut list = br#"{"kind": "List", "items": [{"kind": "ReplicaSet", "metadata": {"name": "web", "namespace": "default", "uid": "u1"}, "spec": {"replicas": 1, "minReadySeconds": "x"}, "x": "#.to_vec();
    list.extend_from_slice(&keys);
    list.extend_from_slice(b"}]}");
    let err = explain_json(&list, &options).expect_err("type error");
    assert_eq!(
        (err.code(), err.path()),
        ("MALFORMED", "items[0].spec.minReadySeconds")
    );
}
