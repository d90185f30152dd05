//! Errors. Every one names the field path of the input it is about, in the JSON spelling
//! (`pods[3].status.conditions[0].lastTransitionTime`), and says what was wrong.

/// Everything an entry point of the engine can refuse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The input is not of the expected shape: wrong JSON type, bad timestamp, bad syntax.
    #[error("{path}: {message}")]
    Malformed { path: String, message: String },
    /// The text is not valid JSON (the message gives line and column).
    #[error("{path}: {message}")]
    Syntax { path: String, message: String },
    /// A count that must not be negative is.
    #[error("{path}: must not be negative (got {value})")]
    Negative { path: String, value: i64 },
    /// A field the decision needs is absent or empty.
    #[error("{path}: is required")]
    Missing { path: String },
    /// The same pod (namespace/name) is given twice.
    #[error("{path}: pod {key} is given twice (first at {first})")]
    DuplicatePod {
        path: String,
        key: String,
        first: String,
    },
    /// The configuration is not a combination upstream allows.
    #[error("{path}: {message}")]
    Config { path: String, message: String },
    /// A host's outcome does not fit the plan it reports on.
    #[error("{path}: {message}")]
    Outcome { path: String, message: String },
    /// The [`crate::store::Store`] holds no such object.
    #[error("{path}: {what} {key} is not in the store")]
    NotFound {
        path: String,
        what: &'static str,
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
