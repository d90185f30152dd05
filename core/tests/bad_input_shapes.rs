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

// ---------------------------------------------------------------------------------------
// Quoted values are capped: 200 characters, `…` and the full length.

const BIG: usize = 5 * 1024 * 1024;

fn big() -> String {
    "x".repeat(BIG)
}

fn capped_quote() -> String {
    format!("\"{}…\" ({BIG} bytes)", "x".repeat(200))
}

fn assert_small(err: &Error) {
    assert!(err.to_string().len() < 1_000, "{}", err.to_string().len());
}

#[test]
fn a_5mb_string_of_the_wrong_type_is_quoted_capped() {
    let text = format!(
        r#"{{"now": "2026-11-21T04:40:12Z", "owner": {{"spec": {{"replicas": "{}"}}}}}}"#,
        big()
    );
    let err = refused(text.as_bytes());
    assert_eq!(
        (err.code(), err.path()),
        ("MALFORMED", "owner.spec.replicas")
    );
    assert_eq!(
        err.to_string(),
        format!(
            "owner.spec.replicas: invalid type: string {}, expected i32",
            capped_quote()
        )
    );
}

#[test]
fn a_5mb_timestamp_is_quoted_capped() {
    let text = format!(r#"{{"now": "{}"}}"#, big());
    let err = refused(text.as_bytes());
    assert_eq!((err.code(), err.path()), ("MALFORMED", "now"));
    assert_eq!(
        err.to_string(),
        format!("now: invalid RFC 3339 timestamp {}", capped_quote())
    );
}

#[test]
fn a_5mb_enum_value_is_quoted_capped() {
    use replicore::outcome::SyncOutcome;
    let text = format!(r#"{{"creates": [{{"result": "{}"}}]}}"#, big());
    let err = replicore::input::from_json::<SyncOutcome>(text.as_bytes()).expect_err("variant");
    assert_eq!(err.path(), "creates[0].result");
    assert!(
        err.to_string()
            .contains(&format!("`{}…` ({BIG} bytes)", "x".repeat(200))),
        "{}",
        &err.to_string()[..300.min(err.to_string().len())]
    );
    assert_small(&err);
}

#[test]
fn a_5mb_selector_operator_key_and_version_are_quoted_capped() {
    use replicore::model::LabelSelector;
    use replicore::Selector;
    let sel: LabelSelector = serde_json::from_value(serde_json::json!({
        "matchExpressions": [{"key": "app", "operator": big(), "values": ["a"]}]
    }))
    .expect("a selector");
    let err = Selector::compile(Some(&sel)).expect_err("operator");
    assert_eq!(
        err.to_string(),
        format!(
            "invalid label selector: {} is not a valid label selector operator",
            capped_quote()
        )
    );
    let sel: LabelSelector = serde_json::from_value(serde_json::json!({
        "matchLabels": {big(): "a"}
    }))
    .expect("a selector");
    let err = Selector::compile(Some(&sel)).expect_err("key");
    assert!(
        err.to_string().starts_with(&format!(
            "invalid label selector: invalid label key {}: ",
            capped_quote()
        )),
        "{}",
        &err.to_string()[..300]
    );
    let config = format!(r#"{{"emulationVersion": "{}"}}"#, big());
    let config: replicore::Config =
        replicore::input::from_json(config.as_bytes()).expect("a config");
    let err = config.validate().expect_err("version");
    assert_eq!(
        err.to_string(),
        format!(
            "config.emulationVersion: {} is not a version like \"1.30\"",
            capped_quote()
        )
    );
}

#[test]
fn a_5mb_name_is_capped_in_not_found() {
    let store = replicore::Store::new(replicore::Config::default()).expect("a store");
    let name = big();
    let context = replicore::SyncContext::at(
        Time::parse("2026-11-21T04:40:12Z")
            .ok()
            .flatten()
            .expect("a time"),
    );
    let err = store
        .snapshot("default", &name, context)
        .map(|_| ())
        .expect_err("not found");
    assert_eq!(err.code(), "NOT_FOUND");
    assert_eq!(
        err.to_string(),
        format!(
            "owner: owner default/{}… ({} bytes) is not in the store",
            "x".repeat(192),
            BIG + 8
        )
    );
}

#[test]
fn short_values_are_quoted_whole() {
    use replicore::error::{cap_quotes, capped, quoted};
    assert_eq!(quoted("a\"b\n'"), "\"a\\\"b\\n'\"");
    assert_eq!(quoted(&"é".repeat(200)), format!("\"{}\"", "é".repeat(200)));
    assert_eq!(
        quoted(&"é".repeat(201)),
        format!("\"{}…\" (402 bytes)", "é".repeat(200))
    );
    assert_eq!(capped("default/web"), "default/web");
    let msg = format!("invalid type: string \"{}\", expected `x`", "y".repeat(201));
    assert_eq!(cap_quotes(&msg), msg);
    let msg = format!("invalid type: string \"{}\", expected `x`", "y".repeat(202));
    assert_eq!(
        cap_quotes(&msg),
        format!(
            "invalid type: string \"{}…\" (202 bytes), expected `x`",
            "y".repeat(200)
        )
    );
    // A value quoted already passes unchanged.
    let once = format!("timestamp {}", quoted(&"z".repeat(1000)));
    assert_eq!(cap_quotes(&once), once);
}
