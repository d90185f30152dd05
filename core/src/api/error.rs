//! Errors. Every one names the field path of the input it is about, in the JSON spelling
//! (`pods[3].status.conditions[0].lastTransitionTime`), and says what was wrong.

/// Everything an entry point of the engine can refuse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The input is not of the expected shape: wrong JSON type, bad timestamp, bad syntax.
    #[error("{path}: {message}")]
    Malformed {
        /// Where, as a JSON path.
        path: String,
        /// What was wrong.
        message: String,
    },
    /// The text is not valid JSON (the message gives line and column).
    #[error("{path}: {message}")]
    Syntax {
        /// Where, as a JSON path (`.` for the document itself).
        path: String,
        /// The parser's message, with line and column.
        message: String,
    },
    /// A count that must not be negative is.
    #[error("{path}: must not be negative (got {value})")]
    Negative {
        /// Where, as a JSON path.
        path: String,
        /// The negative value given.
        value: i64,
    },
    /// A field the decision needs is absent or empty.
    #[error("{path}: is required")]
    Missing {
        /// Where, as a JSON path.
        path: String,
    },
    /// The same pod (namespace/name) is given twice.
    #[error("{path}: pod {} is given twice (first at {first})", capped(key))]
    DuplicatePod {
        /// Where the second one is, as a JSON path.
        path: String,
        /// The pod's `namespace/name`.
        key: String,
        /// Where the first one is, as a JSON path.
        first: String,
    },
    /// The configuration is not a combination upstream allows.
    #[error("{path}: {message}")]
    Config {
        /// Where, as a JSON path.
        path: String,
        /// What upstream does not allow.
        message: String,
    },
    /// A host's outcome does not fit the plan it reports on.
    #[error("{path}: {message}")]
    Outcome {
        /// Where, as a JSON path.
        path: String,
        /// How the outcome and the plan disagree.
        message: String,
    },
    /// The [`crate::Store`] holds no such object.
    #[error("{path}: {what} {} is not in the store", capped(key))]
    NotFound {
        /// Where the key was given, as a JSON path.
        path: String,
        /// What kind of object was looked for, as `owner`.
        what: &'static str,
        /// The object's key.
        key: String,
    },
}

impl Error {
    /// The JSON path of the offending field.
    pub fn path(&self) -> &str {
        match self {
            Error::Malformed { path, .. }
            | Error::Syntax { path, .. }
            | Error::Negative { path, .. }
            | Error::Missing { path }
            | Error::DuplicatePod { path, .. }
            | Error::Config { path, .. }
            | Error::Outcome { path, .. }
            | Error::NotFound { path, .. } => path,
        }
    }

    /// A stable machine-readable code (used as `error.code` in JavaScript).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Malformed { .. } => "MALFORMED",
            Error::Syntax { .. } => "SYNTAX",
            Error::Negative { .. } => "NEGATIVE",
            Error::Missing { .. } => "MISSING",
            Error::DuplicatePod { .. } => "DUPLICATE_POD",
            Error::Config { .. } => "INVALID_CONFIG",
            Error::Outcome { .. } => "OUTCOME_MISMATCH",
            Error::NotFound { .. } => "NOT_FOUND",
        }
    }
}

/// A result whose error is the engine's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The same error with its path placed under `root` (`config` + `burstReplicas` =
    /// `config.burstReplicas`); for hosts that pass several documents.
    pub fn under(self, root: &str) -> Error {
        if root.is_empty() {
            return self;
        }
        let join = |p: String| join_path(root, &p);
        match self {
            Error::Malformed { path, message } => Error::Malformed {
                path: join(path),
                message,
            },
            Error::Syntax { path, message } => Error::Syntax {
                path: join(path),
                message,
            },
            Error::Negative { path, value } => Error::Negative {
                path: join(path),
                value,
            },
            Error::Missing { path } => Error::Missing { path: join(path) },
            Error::DuplicatePod { path, key, first } => Error::DuplicatePod {
                path: join(path),
                key,
                first: join(first),
            },
            Error::Config { path, message } => Error::Config {
                path: join(path),
                message,
            },
            Error::Outcome { path, message } => Error::Outcome {
                path: join(path),
                message,
            },
            Error::NotFound { path, what, key } => Error::NotFound {
                path: join(path),
                what,
                key,
            },
        }
    }
}

/// `prefix` + `inner` as one JSON path (`items[3]` + `metadata.name` =
/// `items[3].metadata.name`, `pods` + `[2]` = `pods[2]`); `.` for the root.
pub(crate) fn join_path(prefix: &str, inner: &str) -> String {
    let inner = inner.trim_start_matches('.');
    match (prefix.is_empty(), inner.is_empty()) {
        (true, true) => ".".into(),
        (true, false) => inner.into(),
        (false, true) => prefix.into(),
        (false, false) if inner.starts_with('[') => format!("{prefix}{inner}"),
        (false, false) => format!("{prefix}.{inner}"),
    }
}

/// At most this many characters of an input value are quoted in a message; a longer one
/// is cut, with `…` and its full length (a 5 MB string does not make a 5 MB message).
pub const MAX_QUOTED_CHARS: usize = 200;

/// A value of the input as a message quotes it: `"text"`, escaped as `{:?}` escapes it,
/// and cut after [`MAX_QUOTED_CHARS`] characters: `"abc…" (5242880 bytes)`. Only what is
/// shown is escaped: quoting a 5 MB value costs no more than quoting 200 characters.
pub fn quoted(value: &str) -> String {
    let mut out = String::from('"');
    let mut shown = 0usize;
    for c in value.chars() {
        // As `{:?}` of a str: a single quote is not escaped.
        let piece = if c == '\'' {
            c.to_string()
        } else {
            c.escape_debug().to_string()
        };
        for e in piece.chars() {
            if shown == MAX_QUOTED_CHARS {
                out.push_str(&format!("…\" ({} bytes)", value.len()));
                return out;
            }
            out.push(e);
            shown += 1;
        }
    }
    out.push('"');
    out
}

/// A value of the input named bare in a message (a `namespace/name` key), cut after
/// [`MAX_QUOTED_CHARS`] characters: `abc… (5242880 bytes)`.
pub fn capped(value: &str) -> String {
    match value.char_indices().nth(MAX_QUOTED_CHARS) {
        Some((cut, _)) => format!(
            "{}… ({} bytes)",
            value.get(..cut).unwrap_or_default(),
            value.len()
        ),
        None => value.to_owned(),
    }
}

/// A message with every quoted run (`"…"` or `` `…` ``) longer than [`MAX_QUOTED_CHARS`]
/// characters cut, with `…` and its length in bytes: for the messages serde_json writes,
/// which quote the whole offending value (`invalid type: string "…", expected …`).
pub fn cap_quotes(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(4 * MAX_QUOTED_CHARS + 64));
    let mut chars = message.chars();
    while let Some(c) = chars.next() {
        out.push(c);
        if c != '"' && c != '`' {
            continue;
        }
        let (mut shown, mut bytes, mut escaped, mut closed) = (0usize, 0usize, false, false);
        // The character after the first MAX_QUOTED_CHARS: shown if it is the last one (the
        // `…` of a value [`quoted`] cut already, say).
        let mut next = None;
        for d in chars.by_ref() {
            if !escaped && d == c {
                closed = true;
                break;
            }
            escaped = c == '"' && !escaped && d == '\\';
            bytes = bytes.saturating_add(d.len_utf8());
            if shown < MAX_QUOTED_CHARS {
                out.push(d);
            } else if shown == MAX_QUOTED_CHARS {
                next = Some(d);
            }
            shown = shown.saturating_add(1);
        }
        let cut = shown > MAX_QUOTED_CHARS + 1;
        if cut {
            out.push('…');
        } else if let Some(d) = next {
            out.push(d);
        }
        if closed {
            out.push(c);
        }
        if cut {
            out.push_str(&format!(" ({bytes} bytes)"));
        }
    }
    out
}

/// A JSON value's type in an error message's words (`a string`, `an object`, …).
pub(crate) fn json_type(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
