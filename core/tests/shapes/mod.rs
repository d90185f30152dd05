//! Adversarial bad inputs of a given size, shared by the refusal tests
//! (`tests/bad_input_shapes.rs`) and the `refuse/…` benchmarks (`benches/engine.rs`).
//! Both are refused only at their very end, after the reader has passed every value.
#![allow(dead_code)]

/// `{"a":[[[…]]],"now":1}` of about `size` bytes: an unknown field nested
/// `(size - 16) / 2` arrays deep, then a `now` of the wrong type.
pub fn deep_nesting(size: usize) -> Vec<u8> {
    let depth = size.saturating_sub(16) / 2;
    let mut out = Vec::with_capacity(size + 16);
    out.extend_from_slice(b"{\"a\":");
    out.extend(std::iter::repeat_n(b'[', depth));
    out.extend(std::iter::repeat_n(b']', depth));
    out.extend_from_slice(b",\"now\":1}");
    out
}

/// Levels of [`long_nested_keys`].
pub const LONG_KEYS_DEPTH: usize = 100;

/// A valid-looking input of about `size` bytes whose unknown field `x` nests
/// [`LONG_KEYS_DEPTH`] objects under keys each `size / 200` bytes long (half the size), the
/// innermost holding many short members (the other half), and whose `cacheIsFresh` at the end is
/// a number (a type error).
pub fn long_nested_keys(size: usize) -> Vec<u8> {
    let key_len = (size / (2 * LONG_KEYS_DEPTH)).max(1);
    let mut out = Vec::with_capacity(size + 256);
    out.extend_from_slice(
        br#"{"now":"2026-11-21T04:40:12Z","owner":{"metadata":{"name":"web","namespace":"default","uid":"u1"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}}}},"x":"#,
    );
    for level in 0..LONG_KEYS_DEPTH {
        out.push(b'{');
        out.push(b'"');
        out.extend(std::iter::repeat_n(b'a' + (level % 26) as u8, key_len));
        out.extend_from_slice(b"\":");
    }
    out.push(b'{');
    let mut i = 0usize;
    while out.len() < size.saturating_sub(LONG_KEYS_DEPTH + 24) {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(format!("\"m{i}\":{}", i % 10).as_bytes());
        i += 1;
    }
    out.push(b'}');
    out.extend(std::iter::repeat_n(b'}', LONG_KEYS_DEPTH));
    out.extend_from_slice(b",\"cacheIsFresh\":1}");
    out
}
