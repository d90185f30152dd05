//! Where in a JSON text an error is: the field path (`pods[3].status.phase`) of the value
//! at a byte offset.
//!
//! serde_json reports the line and column where it detected an error: right after the
//! offending value (a wrong type, a bad timestamp), right after the closing brace of an
//! object (a missing field: the object ends there, like any value),
//! at an opening bracket it refused (an array where an object belongs), or at the first
//! byte it could not read (a syntax error). Rather than tracking the path during every
//! parse (which doubles both the parsing time and every deserializer's code in the wasm
//! binary), the path is recovered afterwards by scanning the text up to that offset.

/// A path names at most this many levels; a deeper one ends in `…` after them. (serde_json
/// reads at most 128 levels into a value; only the text it skips can be deeper.)
pub(crate) const MAX_PATH_DEPTH: usize = 128;

/// A key longer than this many characters is cut short in a path, with `…`.
const MAX_KEY_CHARS: usize = 200;

/// One open container on the way to the offset.
enum Frame {
    /// An object, with the key of the member being read: `None` before the first key,
    /// from the key on the offset of its opening quote. `value` is set after the colon.
    Object { key: Option<usize>, value: bool },
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

/// The path of the first `upto` frames. Rendered once, when the scan is over: the work is
/// bounded by the [`MAX_PATH_DEPTH`] levels and the [`MAX_KEY_CHARS`] of each key, however
/// many values the scan passed.
fn render(bytes: &[u8], frames: &[Frame], upto: usize) -> String {
    let mut out = String::new();
    for f in frames.iter().take(upto.min(MAX_PATH_DEPTH)) {
        match f {
            Frame::Object { key: Some(at), .. } => {
                if !out.is_empty() {
                    out.push('.');
                }
                push_key(&mut out, bytes, *at);
            }
            Frame::Object { key: None, .. } => {}
            Frame::Array { index } => {
                out.push('[');
                out.push_str(&index.to_string());
                out.push(']');
            }
        }
    }
    if upto > MAX_PATH_DEPTH {
        out.push('…');
    }
    out
}

/// Appends the key whose opening quote is at `at` (escapes kept as written except `\"`
/// and `\\`), cut after [`MAX_KEY_CHARS`] characters.
fn push_key(out: &mut String, bytes: &[u8], at: usize) {
    let mut raw = Vec::new();
    let mut j = at + 1;
    // Enough bytes for MAX_KEY_CHARS characters of up to 4 bytes, and one more to know
    // whether the key goes on.
    let room = MAX_KEY_CHARS * 4 + 1;
    while let Some(&b) = bytes.get(j) {
        if b == b'"' || raw.len() >= room {
            break;
        }
        if b == b'\\' {
            if let Some(&e) = bytes.get(j + 1) {
                raw.push(e);
            }
            j += 2;
        } else {
            raw.push(b);
            j += 1;
        }
    }
    let text = String::from_utf8_lossy(&raw);
    match text.char_indices().nth(MAX_KEY_CHARS) {
        Some((cut, _)) => {
            out.push_str(text.get(..cut).unwrap_or_default());
            out.push('…');
        }
        None => out.push_str(&text),
    }
}

/// The end of the string starting at `i` (a `"`), exclusive.
fn string_end(bytes: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while let Some(&b) = bytes.get(j) {
        match b {
            b'"' => return j + 1,
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
    bytes.len()
}

/// The path of the value an error at byte `offset` is about: the value that ends exactly
/// there, else the member or element being read there. `""` is the document itself. (An
/// object missing a field ends where serde_json reports it, whatever follows: a comma, or
/// the bracket closing its parent, which is not scanned.)
///
/// One pass over the text up to `offset`, keeping only the open containers (a key as its
/// offset), and one rendering of the path at the end: time linear in `offset`.
pub(crate) fn path_at(bytes: &[u8], offset: usize) -> String {
    let mut stack = Stack::default();
    let target = offset;
    // Where the value completed last ended. The scan stops at `target`, so when that
    // value ends there, `stack` still holds the path of its slot.
    let mut last_end: Option<usize> = None;
    let mut i = 0;
    while i < target {
        let Some(&b) = bytes.get(i) else { break };
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'{' => {
                stack.open(false);
                i += 1;
            }
            b'[' => {
                stack.open(true);
                i += 1;
            }
            b'}' | b']' => {
                stack.close();
                i += 1;
                last_end = Some(i);
            }
            b':' => {
                stack.colon();
                i += 1;
            }
            b',' => {
                stack.comma();
                i += 1;
            }
            b'"' => {
                let end = string_end(bytes, i);
                if !stack.key(i) {
                    last_end = Some(end);
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
                last_end = Some(end);
                i = end;
            }
        }
    }
    let depth = stack.depth();
    let upto = match last_end {
        // The value ending at the offset: the slot it filled.
        Some(end) if end == target => depth,
        // The array whose next element could not begin.
        _ if stack.in_array() => depth - 1,
        // The member being read (the object itself before a key is read).
        _ => depth,
    };
    render(bytes, &stack.frames, upto)
}

/// A container deeper than a path names, by what it is reading.
#[derive(Clone, Copy, PartialEq)]
enum Deep {
    Array,
    /// An object before the colon of its current member.
    Key,
    /// An object after it.
    Value,
}

/// The open containers: the levels a path names in full ([`Frame`]s), any deeper ones by
/// their kind only (a byte each, for text nested a million levels deep).
#[derive(Default)]
struct Stack {
    frames: Vec<Frame>,
    deeper: Vec<Deep>,
}

impl Stack {
    fn depth(&self) -> usize {
        self.frames.len() + self.deeper.len()
    }

    fn open(&mut self, array: bool) {
        if self.frames.len() <= MAX_PATH_DEPTH {
            self.frames.push(if array {
                Frame::Array { index: 0 }
            } else {
                Frame::Object {
                    key: None,
                    value: false,
                }
            });
        } else {
            self.deeper
                .push(if array { Deep::Array } else { Deep::Key });
        }
    }

    fn close(&mut self) {
        if self.deeper.pop().is_none() {
            self.frames.pop();
        }
    }

    fn colon(&mut self) {
        match self.deeper.last_mut() {
            Some(d) => {
                if *d == Deep::Key {
                    *d = Deep::Value;
                }
            }
            None => {
                if let Some(Frame::Object { value, .. }) = self.frames.last_mut() {
                    *value = true;
                }
            }
        }
    }

    fn comma(&mut self) {
        match self.deeper.last_mut() {
            Some(d) => {
                if *d == Deep::Value {
                    *d = Deep::Key;
                }
            }
            None => match self.frames.last_mut() {
                Some(Frame::Object { key, value }) => {
                    *key = None;
                    *value = false;
                }
                Some(Frame::Array { index }) => *index += 1,
                None => {}
            },
        }
    }

    /// A string starting at `at`: true when it is the key of a member.
    fn key(&mut self, at: usize) -> bool {
        match self.deeper.last() {
            Some(d) => *d == Deep::Key,
            None => match self.frames.last_mut() {
                Some(Frame::Object { key, value: false }) => {
                    *key = Some(at);
                    true
                }
                _ => false,
            },
        }
    }

    fn in_array(&self) -> bool {
        match self.deeper.last() {
            Some(d) => *d == Deep::Array,
            None => matches!(self.frames.last(), Some(Frame::Array { .. })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, marker: &str) -> String {
        let offset = text.find(marker).map_or(text.len(), |i| i + marker.len());
        path_at(text.as_bytes(), offset)
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
    fn an_object_ends_where_its_closing_brace_ends() {
        // serde_json reports a missing field right after the object's closing brace; what
        // comes next (a comma, the parent's closing brace or bracket) is not the object.
        let t = r#"{"owner": {"spec": {}}, "items": [{"a": 1}, {}], "x": {}}"#;
        let after = |needle: &str| t.find(needle).map_or(0, |i| i + needle.len());
        assert_eq!(path_at(t.as_bytes(), after(r#""spec": {}"#)), "owner.spec");
        assert_eq!(path_at(t.as_bytes(), after(r#""spec": {}}"#)), "owner");
        assert_eq!(path_at(t.as_bytes(), after(r#"{"a": 1}"#)), "items[0]");
        assert_eq!(path_at(t.as_bytes(), after(r#", {}"#)), "items[1]");
        assert_eq!(path_at(t.as_bytes(), after(r#""x": {}"#)), "x");
        assert_eq!(path_at(t.as_bytes(), t.len()), "");
        // A wrong value right before a closing brace is the value, not the object.
        let t = r#"{"owner": {"spec": {}}, "x": 1}"#;
        assert_eq!(path_at(t.as_bytes(), t.len() - 1), "x");
    }

    #[test]
    fn a_refused_opening_bracket_is_the_member_it_starts() {
        let t = r#"{"owner": {"metadata": []}}"#;
        let bracket = t.find('[').unwrap_or(0);
        assert_eq!(path_at(t.as_bytes(), bracket), "owner.metadata");
    }

    #[test]
    fn syntax_errors_and_keys() {
        assert_eq!(at(r#"{"a": {"b": tru"#, "tru"), "a.b");
        assert_eq!(at(r#"{"a": {"#, "{\"a\": {"), "a");
        assert_eq!(at(r#"{"a\"b": 1}"#, "1"), "a\"b");
        assert_eq!(path_at(b"", 0), "");
        assert_eq!(offset_of(b"ab\ncd", 2, 1), Some(4));
        assert_eq!(offset_of(b"ab", 0, 0), None);
    }

    #[test]
    fn a_path_names_128_levels_then_an_ellipsis() {
        // 200 objects deep, a key string, a value string, then an error in a member.
        let t = format!("{}\"v\", \"w\": [1, tru", "{\"k\": ".repeat(200));
        let path = at(&t, "tru");
        assert_eq!(path, format!("{}…", vec!["k"; 128].join(".")));
        // At 128 levels the path is whole.
        let t = format!("{}\"v\", \"w\": tru", "{\"k\": ".repeat(127));
        assert_eq!(at(&t, "tru"), format!("{}.w", vec!["k"; 126].join(".")));
        // Deeper containers closed again do not lengthen the path.
        let t = format!(
            "{{\"a\": {}{}, \"b\": tru",
            "[{\"x\": ".repeat(300),
            "}]".repeat(300)
        );
        assert_eq!(at(&t, "tru"), "b");
    }
}
