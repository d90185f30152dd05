//! Explains what the ReplicaSet controller would do now with a `kubectl get rs,pods -o json`
//! snapshot, and which pods a scale-down would delete first, and why.
//!
//! ```text
//! cargo run --release -p replicore --features explain --example explain -- [-f FILE|-] [--replicas N] [--rs NAME] [--now RFC3339] [--json]
//! kubectl get rs,pods -n shop -o json | cargo run -p replicore --features explain --example explain -- -f - --replicas 3
//! ```

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::process::ExitCode;

use replicore::explain::{
    explain_json, ExplainOptions, Explanation, OwnerExplanation, SyncAction, VictimExplanation,
};
use replicore::sync::{Halt, Idle};
use replicore::{Error, Time};

const USAGE: &str = "usage: explain [-f FILE|-] [--replicas N] [--rs NAME] [--now RFC3339] [--json]

  -f, --file FILE   a `kubectl get rs,pods -o json` List ('-' = stdin);
                    default: the workspace's examples/cluster.json
  --replicas N      also preview a scale-down to N replicas: which pods go, in order
  --rs NAME         explain only this ReplicaSet (name or namespace/name)
  --now RFC3339     the controller clock (default: the system clock)
  --json            print the explanation as JSON";

struct Args {
    file: Option<String>,
    replicas: Option<i32>,
    owner: Option<String>,
    now: Option<Time>,
    json: bool,
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
    let explanation =
        explain_json(&bytes, &options).map_err(|e| Failure::Run(describe(&name, &e)))?;
    if args.json {
        let text = serde_json::to_string_pretty(&explanation)
            .map_err(|e| Failure::Run(format!("cannot write JSON: {e}")))?;
        emit(&format!("{text}\n"))
    } else {
        emit(&report(&explanation))
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

// ---------------------------------------------------------------------------------------
// The plain-text report

fn report(x: &Explanation) -> String {
    let mut s = String::new();
    let ignored = match x.ignored {
        0 => String::new(),
        1 => ", 1 other object ignored".into(),
        n => format!(", {n} other objects ignored"),
    };
    let _ = writeln!(
        s,
        "{} at {}{ignored}",
        plural(x.replica_sets, "ReplicaSet") + ", " + &plural(x.pods, "pod"),
        x.now
    );
    for owner in &x.owners {
        s.push('\n');
        owner_report(&mut s, owner, x.now);
    }
    s
}

fn owner_report(s: &mut String, o: &OwnerExplanation, now: Time) {
    let mut about = Vec::new();
    if let Some(c) = &o.controller {
        about.push(format!("owned by {c}"));
    }
    about.push(format!("selector {}", o.selector));
    if o.min_ready_seconds > 0 {
        about.push(format!("minReadySeconds {}", o.min_ready_seconds));
    }
    let _ = writeln!(s, "{}/{}  ({})", o.namespace, o.name, about.join(", "));
    let p = &o.pods;
    let _ = writeln!(
        s,
        "  pods      desired {}, active {}, ready {}, available {}, terminating {}",
        o.desired, p.active, p.ready, p.available, p.terminating
    );
    if let Some(halt) = &o.halt {
        let why = match halt {
            Halt::InvalidSelector { message } => message.clone(),
            Halt::StaleCache => "the cache has not seen this owner's writes yet".into(),
        };
        let _ = writeln!(s, "  halted    {why}");
    }
    if !o.adopt.is_empty() {
        let _ = writeln!(s, "  adopt     {}", o.adopt.join(", "));
    }
    if !o.release.is_empty() {
        let _ = writeln!(s, "  release   {}", o.release.join(", "));
    }
    match &o.sync {
        SyncAction::Nothing { why } => {
            let why = match why {
                Idle::InSync => format!("in sync ({} active, {} desired)", p.active, o.desired),
                Idle::ExpectationsPending => {
                    "earlier creates or deletes are not yet observed".into()
                }
                Idle::OwnerTerminating => "the ReplicaSet is being deleted".into(),
                Idle::ClaimFailed => "a claim failed".into(),
                Idle::Halted => "the sync halts".into(),
            };
            let _ = writeln!(s, "  sync      nothing: {why}");
        }
        SyncAction::Create {
            count,
            batches,
            refused,
        } => {
            let batches: Vec<String> = batches.iter().map(usize::to_string).collect();
            let _ = writeln!(
                s,
                "  sync      create {} in slow-start batches {}",
                plural(*count, "pod"),
                batches.join(", ")
            );
            if let Some(why) = refused {
                let _ = writeln!(s, "            but every create fails: {why}");
            }
        }
        SyncAction::Delete { victims } => {
            let _ = writeln!(
                s,
                "  sync      delete {} ({} active, {} desired), first to go first:",
                plural(victims.len(), "pod"),
                p.active,
                o.desired
            );
            s.push_str(&victims_table(victims, now));
        }
    }
    if let Some(down) = &o.scale_down {
        if down.victims.is_empty() {
            let _ = writeln!(
                s,
                "  scale to {}: nothing would be deleted ({} active)",
                down.replicas, down.active
            );
        } else {
            let when = if down.burst < down.victims.len() {
                format!("{} in the first sync, the rest in later ones", down.burst)
            } else {
                "all in the first sync".into()
            };
            let _ = writeln!(
                s,
                "  scale to {}: {} of {} pods would go, first to go first ({when}):",
                down.replicas,
                down.victims.len(),
                down.active
            );
            s.push_str(&victims_table(&down.victims, now));
        }
    }
}

fn victims_table(victims: &[VictimExplanation], now: Time) -> String {
    let header = [
        "#",
        "POD",
        "NODE",
        "PHASE",
        "READY",
        "COST",
        "CO-LOCATED",
        "RESTARTS",
        "WHY BEFORE THE NEXT",
    ];
    let right = [true, false, false, false, false, true, true, true, false];
    let mut rows = vec![header.map(str::to_owned).to_vec()];
    for v in victims {
        let f = &v.facts;
        let ready = match (f.ready, v.ready_since) {
            (false, _) => "no".to_owned(),
            (true, Some(t)) => format!("yes, {}", age(now, t)),
            (true, None) => "yes".to_owned(),
        };
        rows.push(vec![
            v.position.to_string(),
            v.name.clone(),
            if f.node.is_empty() {
                "<none>".into()
            } else {
                f.node.clone()
            },
            if f.phase.is_empty() {
                "<none>".into()
            } else {
                f.phase.clone()
            },
            ready,
            f.deletion_cost.to_string(),
            f.colocated.to_string(),
            (f.restarts + f.sidecar_restarts).to_string(),
            v.rule_text.unwrap_or("(last)").to_owned(),
        ]);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in &rows {
        let mut line = String::from("    ");
        for ((cell, width), right) in row.iter().zip(&widths).zip(right) {
            if right {
                let _ = write!(line, "{cell:>width$}  ");
            } else {
                let _ = write!(line, "{cell:<width$}  ");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `5s`, `12m`, `26h`, `6d`: how long ago `t` was.
fn age(now: Time, t: Time) -> String {
    let secs = now.since(t).as_nanos() / 1_000_000_000;
    match secs {
        s if s < 0 => "in the future".into(),
        s if s < 120 => format!("{s}s"),
        s if s < 120 * 60 => format!("{}m", s / 60),
        s if s < 48 * 3600 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
