//! Explains what the ReplicaSet controller would do now with a `kubectl get rs,pods -o json`
//! snapshot, and which pods a scale-down would delete first, and why. With Deployments in
//! the list (`kubectl get deploy,rs,pods -o json`), each Deployment is explained first
//! (`replicore::deployment::explain`); `--json` then prints `{deployments, replicaSets}`.
//!
//! ```text
//! cargo run --release -p replicore --features explain --example explain -- [-f FILE|-] [--replicas N] [--rs NAME] [--now RFC3339] [--json]
//! kubectl get rs,pods -n shop -o json | cargo run -p replicore --features explain --example explain -- -f - --replicas 3
//! ```

use std::io::{Read, Write};
use std::process::ExitCode;

use replicore::explain::report::{render, report, ForecastRequest, ReportOptions};
use replicore::explain::ExplainOptions;
use replicore::{Error, Time};

const USAGE: &str =
    "usage: explain [-f FILE|-] [--replicas N] [--rs NAME] [--now RFC3339] [--forecast] [--json]

  -f, --file FILE   a `kubectl get deploy,rs,pods -o json` List ('-' = stdin);
                    default: the workspace's examples/cluster.json
  --replicas N      also preview a scale-down to N replicas: which pods go, in order
  --rs NAME         explain only this ReplicaSet (name or namespace/name)
  --now RFC3339     the controller clock (default: the system clock)
  --forecast        also play each Deployment's rollout forward (10 s start-up)
  --json            print the explanation as JSON";

struct Args {
    file: Option<String>,
    replicas: Option<i32>,
    owner: Option<String>,
    now: Option<Time>,
    json: bool,
    forecast: bool,
}

/// Why the program stops: a usage error (exit 2) or a failure (exit 1).
enum Failure {
    Usage(String),
    Run(String),
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(message)) => {
            eprintln!("explain: {message} (see --help)");
            ExitCode::from(2)
        }
        Err(Failure::Run(message)) => {
            eprintln!("explain: {message}");
            ExitCode::from(1)
        }
    }
}

fn run() -> Result<(), Failure> {
    let Some(args) = parse_args(std::env::args().skip(1))? else {
        return emit(&format!("{USAGE}\n"));
    };
    let (name, bytes) = read_input(args.file.as_deref())?;
    let now = match args.now {
        Some(t) => t,
        None => system_now()?,
    };
    let options = ExplainOptions {
        replicas: args.replicas,
        owner: args.owner,
        ..ExplainOptions::at(now)
    };
    let options = ReportOptions {
        forecast: args.forecast.then(ForecastRequest::default),
        ..ReportOptions::explain(options)
    };
    let report = report(&bytes, &options).map_err(|e| Failure::Run(describe(&name, &e)))?;
    if args.json {
        let text = report
            .to_json_value()
            .and_then(|v| {
                serde_json::to_string_pretty(&v).map_err(|e| replicore::Error::Malformed {
                    path: String::new(),
                    message: e.to_string(),
                })
            })
            .map_err(|e| Failure::Run(format!("cannot write JSON: {e}")))?;
        emit(&format!("{text}\n"))
    } else {
        emit(&render(&report))
    }
}

/// `None` when help was asked for.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, Failure> {
    let mut out = Args {
        file: None,
        replicas: None,
        owner: None,
        now: None,
        json: false,
        forecast: false,
    };
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_owned(), Some(v.to_owned())),
            _ => (arg.clone(), None),
        };
        let mut value = |what: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| Failure::Usage(format!("{flag} needs {what}")))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(None),
            "-f" | "--file" => out.file = Some(value("a file name (or - for stdin)")?),
            "--replicas" => {
                let v = value("a number")?;
                let n = v.parse::<i32>().map_err(|_| {
                    Failure::Usage(format!("--replicas: {v:?} is not a whole number"))
                })?;
                out.replicas = Some(n);
            }
            "--rs" => out.owner = Some(value("a ReplicaSet name")?),
            "--forecast" => out.forecast = true,
            "--now" => {
                let v = value("an RFC 3339 time")?;
                out.now = match Time::parse(&v) {
                    Ok(Some(t)) => Some(t),
                    Ok(None) => {
                        return Err(Failure::Usage(format!("--now: {v:?} is the zero time")))
                    }
                    Err(e) => return Err(Failure::Usage(format!("--now: {e}"))),
                };
            }
            "--json" if inline.is_none() => out.json = true,
            _ => return Err(Failure::Usage(format!("unknown argument {arg:?}"))),
        }
    }
    Ok(Some(out))
}

fn read_input(file: Option<&str>) -> Result<(String, Vec<u8>), Failure> {
    match file {
        Some("-") => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| Failure::Run(format!("cannot read stdin: {e}")))?;
            Ok(("<stdin>".into(), bytes))
        }
        Some(path) => read_file(path, path),
        None => read_file(
            concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/cluster.json"),
            "examples/cluster.json",
        ),
    }
}

fn read_file(path: &str, name: &str) -> Result<(String, Vec<u8>), Failure> {
    match std::fs::read(path) {
        Ok(bytes) => Ok((name.to_owned(), bytes)),
        Err(e) => Err(Failure::Run(format!("cannot read {name}: {e}"))),
    }
}

/// The engine's error in the terms of this program: options by their flags, input errors
/// by file and JSON path.
fn describe(input: &str, e: &Error) -> String {
    match e {
        Error::Config { path, message } if path == "owner" => format!("--rs: {message}"),
        Error::Negative { path, value } if path == "replicas" => {
            format!("--replicas: must not be negative (got {value})")
        }
        Error::Missing { path } if path == "items" => {
            format!(
                "{input}: items: no ReplicaSet to explain (expected `kubectl get rs,pods -o json`)"
            )
        }
        Error::Malformed { path, message } if path == "." => {
            format!("{input}: not a JSON List: {message}")
        }
        e => format!("{input}: {e}"),
    }
}

fn system_now() -> Result<Time, Failure> {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|e| Failure::Run(format!("the system clock is before 1970: {e}")))?;
    // Whole seconds, as the API server writes times.
    i64::try_from(since_epoch.as_secs())
        .ok()
        .filter(|s| *s < i64::MAX / 1_000_000_000)
        .map(Time::from_unix_seconds)
        .ok_or_else(|| Failure::Run("the system clock is past 2262".into()))
}

/// Writes to stdout; a closed pipe (`| head`) ends the program quietly.
fn emit(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Failure::Run(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}
