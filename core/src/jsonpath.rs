//! Where in a JSON text an error is: the field path (`pods[3].status.phase`) of the value
//! at a byte offset.
//!
//! serde_json reports the line and column where it detected an error: right after the
//! offending value (a wrong type, a bad timestamp), at a closing brace (a missing field),
//! at an opening bracket it refused (an array where an object belongs), or at the first
//! byte it could not read (a syntax error). Rather than tracking the path during every
//! parse (which doubles both the parsing time and every deserializer's code in the wasm
//! binary), the path is recovered afterwards by scanning the text up to that offset.

/// One open container on the way to the offset.
enum Frame {
    /// An object, with the key of the member being read (`None` before the first key,
    /// `Some` from the key on). `value` is set after the colon.
    Object { key: Option<String>, value: bool },
    /// An array and the index of the element being read.
    Array { index: usize },
}

/// The byte offset of serde_json's `line` (1-based) and `column` (bytes since the start of
/// the line); `None` for errors without a position (line 0).
pub(crate) fn offset_of(bytes: &[u8], line: usize, column: usize) -> Option<usize> {
    if line == 0 {
        return None;
    }
    let mut start = 0;
    for _ in 1..line {
        let nl = bytes.get(start..)?.iter().position(|&b| b == b'\n')?;
        start += nl + 1;
    }
    Some((start + column).min(bytes.len()))
}

fn render(frames: &[Frame], upto: usize) -> String {
    let mut out = String::new();
    for f in frames.iter().take(upto) {
        match f {
            Frame::Object { key: Some(k), .. } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Frame::Object { key: None, .. } => {}
            Frame::Array { index } => {
                out.push('[');
                out.push_str(&index.to_string());
                out.push(']');
            }
        }
    }
    out
}

/// The end of the string starting at `i` (a `"`), exclusive, and its text (escapes kept
/// as written except `\"` and `\\`).
fn string_at(bytes: &[u8], i: usize) -> (usize, String) {
    let mut j = i + 1;
    let mut raw = Vec::new();
    while let Some(&b) = bytes.get(j) {
        match b {
            b'"' => return (j + 1, String::from_utf8_lossy(&raw).into_owned()),
            b'\\' => {
                if let Some(&e) = bytes.get(j + 1) {
                    raw.push(e);
                }
                j += 2;
            }
            _ => {
                raw.push(b);
                j += 1;
            }
        }
    }
    (bytes.len(), String::from_utf8_lossy(&raw).into_owned())
}

/// The path of the value an error at byte `offset` is about: the value that ends exactly
/// there, else the member or element being read there. `""` is the document itself.
/// `closing`: the error is about the container closed by the bracket at `offset` (a
/// missing field is detected at the closing brace of its object).
pub(crate) fn path_at(bytes: &[u8], offset: usize, closing: bool) -> String {
    let mut frames: Vec<Frame> = Vec::new();
    let target = if closing && matches!(bytes.get(offset), Some(b'}' | b']')) {
        offset + 1
    } else {
        offset
    };
    // The path of the value completed last, and where it ended.
    let mut last: Option<(usize, String)> = None;
    // The path of the slot a value starting now would fill.
    let slot = |frames: &[Frame]| render(frames, frames.len());
    let mut i = 0;
    while i < target {
        let Some(&b) = bytes.get(i) else { break };
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'{' => {
                frames.push(Frame::Object {
                    key: None,
                    value: false,
                });
                i += 1;
            }
            b'[' => {
                frames.push(Frame::Array { index: 0 });
                i += 1;
            }
            b'}' | b']' => {
                frames.pop();
                i += 1;
                last = Some((i, slot(&frames)));
            }
            b':' => {
                if let Some(Frame::Object { value, .. }) = frames.last_mut() {
                    *value = true;
                }
                i += 1;
            }
            b',' => {
                match frames.last_mut() {
                    Some(Frame::Object { key, value }) => {
                        *key = None;
                        *value = false;
                    }
                    Some(Frame::Array { index }) => *index += 1,
                    None => {}
                }
                i += 1;
            }
            b'"' => {
                let (end, text) = string_at(bytes, i);
                match frames.last_mut() {
                    Some(Frame::Object { key, value: false }) => *key = Some(text),
                    _ => last = Some((end, slot(&frames))),
                }
                i = end;
            }
            _ => {
                let mut end = i;
                while matches!(bytes.get(end), Some(c) if !matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' | b':'))
                {
                    end += 1;
                }
                if end == i {
                    end += 1;
                }
                last = Some((end, slot(&frames)));
                i = end;
            }
        }
    }
    match last {
        Some((end, path)) if end == target => path,
        // The member being read (the object itself before a key is read), or the array
        // whose next element could not begin.
        _ => match frames.last() {
            Some(Frame::Array { .. }) => render(&frames, frames.len() - 1),
            _ => slot(&frames),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, marker: &str) -> String {
        let offset = text.find(marker).map_or(text.len(), |i| i + marker.len());
        path_at(text.as_bytes(), offset, false)
    }

    #[test]
    fn the_value_ending_at_the_offset() {
        let t = r#"{"pods": [{"a": 1}, {"metadata": {"name": "x", "uid": 5}}]}"#;
        assert_eq!(at(t, "\"uid\": 5"), "pods[1].metadata.uid");
        assert_eq!(at(t, "\"name\": \"x\""), "pods[1].metadata.name");
        assert_eq!(at(t, "{\"a\": 1}"), "pods[0]");
        assert_eq!(at(t, "\"a\": 1"), "pods[0].a");
    }

    #[test]
    fn a_closing_brace_is_the_object_it_closes() {
        let t = r#"{"owner": {"spec": {}}, "x": 1}"#;
        let brace = t.find("}}").unwrap_or(0);
        assert_eq!(path_at(t.as_bytes(), brace, true), "owner.spec");
        assert_eq!(path_at(t.as_bytes(), t.len() - 1, true), "");
        // A wrong value right before a closing brace is the value, not the object.
        assert_eq!(path_at(t.as_bytes(), t.len() - 1, false), "x");
    }

    #[test]
    fn a_refused_opening_bracket_is_the_member_it_starts() {
        let t = r#"{"owner": {"metadata": []}}"#;
        let bracket = t.find('[').unwrap_or(0);
        assert_eq!(path_at(t.as_bytes(), bracket, false), "owner.metadata");
    }

    #[test]
    fn syntax_errors_and_keys() {
        assert_eq!(at(r#"{"a": {"b": tru"#, "tru"), "a.b");
        assert_eq!(at(r#"{"a": {"#, "{\"a\": {"), "a");
        assert_eq!(at(r#"{"a\"b": 1}"#, "1"), "a\"b");
        assert_eq!(path_at(b"", 0, false), "");
        assert_eq!(offset_of(b"ab\ncd", 2, 1), Some(4));
        assert_eq!(offset_of(b"ab", 0, 0), None);
    }
}
