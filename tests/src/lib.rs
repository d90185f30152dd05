//! The conformance runner: judges replicore against vectors recorded from the upstream
//! Go controller, exactly as `conformance/vectors/README.md` says.
//!
//! Each kind has a judge that returns `Ok(())` or the first difference found (field,
//! expected, got). For `sync` the runner plays the host and the fake API server: it
//! executes the engine's plan against the vector's injected failures and hands the
//! results to `complete`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
#[cfg(feature = "io")]
use std::io::Read;
#[cfg(feature = "io")]
use std::path::{Path, PathBuf};

use replicore::expectations::{Expectations, ExpectationsRecord};
use replicore::model::{Pod, ReplicaSet, ReplicaSetStatus};
use replicore::outcome::{ApiError, CallResult, ClaimOutcome, LiveOwner, SyncOutcome};
use replicore::replicaset::rank;
use replicore::replicaset::slowstart;
use replicore::replicaset::status::{self, StatusContext};
use replicore::selector::Selector;
use replicore::time::{Duration, Time};
use replicore::{Config, FeatureGates, OwnerKind, SyncInput};
use replicore::{Manage, Requeue};
use serde_json::{json, Value};

pub mod hpa;

/// The kinds of vectors this runner judges, in report order.
pub const KINDS: [&str; 11] = [
    "rank",
    "sync",
    "status",
    "selector",
    "slowstart",
    "expectations",
    "deployment-sync",
    "deployment-hash",
    "hpa-replicas",
    "hpa-sync",
    "hpa-trace",
];

/// A failed case: what differed.
#[derive(Clone, Debug)]
pub struct Failure {
    pub case: String,
    pub field: String,
    pub expected: String,
    pub got: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}\n    expected: {}\n    got:      {}",
            self.case, self.field, self.expected, self.got
        )
    }
}

pub(crate) type Judged = Result<(), Failure>;

pub(crate) fn fail(
    case: &str,
    field: &str,
    expected: impl fmt::Debug,
    got: impl fmt::Debug,
) -> Failure {
    let show = |s: String| match s.char_indices().nth(400) {
        Some((cut, _)) => format!("{}…", s.get(..cut).unwrap_or_default()),
        None => s,
    };
    Failure {
        case: case.into(),
        field: field.into(),
        expected: show(format!("{expected:?}")),
        got: show(format!("{got:?}")),
    }
}

fn check<T: PartialEq + fmt::Debug>(case: &str, field: &str, expected: T, got: T) -> Judged {
    if expected == got {
        Ok(())
    } else {
        Err(fail(case, field, expected, got))
    }
}

/// Results of one kind.
#[derive(Debug, Default)]
pub struct KindReport {
    pub kind: String,
    pub passed: usize,
    pub failures: Vec<Failure>,
}

/// Results of a whole directory.
#[derive(Debug, Default)]
pub struct Report {
    pub kinds: Vec<KindReport>,
}

impl Report {
    pub fn passed(&self) -> usize {
        self.kinds.iter().map(|k| k.passed).sum()
    }

    pub fn failed(&self) -> usize {
        self.kinds.iter().map(|k| k.failures.len()).sum()
    }
}

#[cfg(feature = "io")]
/// Finds `<kind>.json` or `<kind>.json.gz` in `dir` or, failing that, in its
/// subdirectories (`deployment/deployment-hash.json.gz`).
pub fn vector_file(dir: &Path, kind: &str) -> Option<PathBuf> {
    vector_files(dir)
        .into_iter()
        .find_map(|(k, p)| (k == kind).then_some(p))
}

#[cfg(feature = "io")]
/// Every `<kind>.json[.gz]` file under `dir`, recursively, as (kind named by the file name,
/// path): files directly in `dir` first, then subdirectories, each level sorted by name.
pub fn vector_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    let mut files = Vec::new();
    let mut subdirs = Vec::new();
    for path in paths {
        if path.is_dir() {
            subdirs.push(path);
            continue;
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let kind = name
            .strip_suffix(".json.gz")
            .or_else(|| name.strip_suffix(".json"));
        if let Some(kind) = kind {
            files.push((kind.to_owned(), path.clone()));
        }
    }
    for sub in subdirs {
        files.extend(vector_files(&sub));
    }
    files
}

#[cfg(feature = "io")]
/// Reads a vector file (gzip or plain) as a JSON array of cases.
pub fn load(path: &Path) -> Result<Vec<Value>, String> {
    let raw = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        out
    } else {
        raw
    };
    serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(feature = "io")]
/// Runs every vector file of a known kind found under `dir` (recursively), one report per
/// kind in [`KINDS`] order; files of other kinds are skipped.
pub fn run_dir(dir: &Path) -> Result<Report, String> {
    let mut report = Report::default();
    let files = vector_files(dir);
    for kind in KINDS {
        let mut kind_report: Option<KindReport> = None;
        for (_, path) in files.iter().filter(|(k, _)| k == kind) {
            let cases = load(path)?;
            let r = run_kind(kind, &cases);
            match &mut kind_report {
                Some(all) => {
                    all.passed += r.passed;
                    all.failures.extend(r.failures);
                }
                None => kind_report = Some(r),
            }
        }
        report.kinds.extend(kind_report);
    }
    if report.kinds.is_empty() {
        return Err(format!("no vector files in {}", dir.display()));
    }
    Ok(report)
}

/// Judges every case of one kind.
pub fn run_kind(kind: &str, cases: &[Value]) -> KindReport {
    let mut r = KindReport {
        kind: kind.into(),
        ..KindReport::default()
    };
    for case in cases {
        let name = case["name"].as_str().unwrap_or("?").to_owned();
        // A case names its own kind; the file name is the fallback.
        let case_kind = case["kind"].as_str().unwrap_or(kind);
        let judged = std::panic::catch_unwind(|| judge(case_kind, case)).unwrap_or_else(|_| {
            Err(fail(
                &name,
                "panic",
                "no panic",
                "the judge or the engine panicked",
            ))
        });
        match judged {
            Ok(()) => r.passed += 1,
            Err(f) => r.failures.push(f),
        }
    }
    r
}

/// Judges one case of any kind.
pub fn judge(kind: &str, case: &Value) -> Judged {
    match kind {
        "rank" => judge_rank(case),
        "sync" => judge_sync(case),
        "status" => judge_status(case),
        "selector" => judge_selector(case),
        "slowstart" => judge_slowstart(case),
        "expectations" => judge_expectations(case),
        "deployment-sync" => judge_deployment_sync(case),
        "deployment-hash" => judge_deployment_hash(case),
        "hpa-replicas" => hpa::judge_hpa_replicas(case),
        "hpa-sync" => hpa::judge_hpa_sync(case),
        "hpa-trace" => hpa::judge_hpa_trace(case),
        other => Err(fail("?", "kind", "a known kind", other)),
    }
}

/// `deployment-hash`: the `pod-template-hash` of `input.template` with
/// `input.collisionCount`, judged exactly; on a difference the FNV-1a sum and the first
/// differing position of the go-spew text are reported (`fnv32a` and `dump` are
/// diagnostics).
fn judge_deployment_hash(case: &Value) -> Judged {
    use replicore::deployment::hash;
    let name = name_of(case);
    let input = &case["input"];
    let expect = &case["expect"];
    let collision_count = match &input["collisionCount"] {
        Value::Null => None,
        v => Some(
            v.as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .ok_or_else(|| fail(&name, "input.collisionCount", "an int32", v))?,
        ),
    };
    let template = &input["template"];
    let got = hash::pod_template_hash(template, collision_count)
        .map_err(|e| fail(&name, "hash", &expect["hash"], format!("error: {e}")))?;
    if expect["hash"].as_str() == Some(got.as_str()) {
        return Ok(());
    }
    let fnv = hash::template_fnv32a(template, collision_count).ok();
    let want_dump = expect["dump"].as_str().unwrap_or("");
    let got_dump = hash::template_dump(template).unwrap_or_default();
    let at = want_dump
        .bytes()
        .zip(got_dump.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(want_dump.len().min(got_dump.len()));
    let around = |s: &str| {
        let start = at.saturating_sub(40);
        let bytes = s.as_bytes();
        let end = (at + 40).min(bytes.len());
        String::from_utf8_lossy(bytes.get(start..end).unwrap_or(&[])).into_owned()
    };
    let dump_note = if want_dump == got_dump {
        "dumps equal".to_owned()
    } else {
        format!(
            "dump differs at byte {at}: expected …{}… got …{}…",
            around(want_dump),
            around(&got_dump)
        )
    };
    Err(Failure {
        case: name,
        field: format!(
            "hash (fnv32a expected {}, got {fnv:?}; {dump_note})",
            expect["fnv32a"]
        ),
        expected: format!("{:?}", expect["hash"]),
        got: format!("{got:?}"),
    })
}

pub(crate) fn name_of(case: &Value) -> String {
    case["name"].as_str().unwrap_or("?").to_owned()
}

pub(crate) fn parse<T: serde::de::DeserializeOwned>(
    case: &str,
    field: &str,
    v: &Value,
) -> Result<T, Failure> {
    replicore::input::from_value_any(v.clone())
        .map_err(|e| fail(case, field, "parsable input", e.to_string()))
}

fn time(case: &str, v: &Value) -> Result<Time, Failure> {
    parse::<Time>(case, "now", v)
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn gates(v: &Value) -> FeatureGates {
    let mut g = FeatureGates::default();
    let get = |k: &str, d: bool| v.get(k).and_then(Value::as_bool).unwrap_or(d);
    g.pod_deletion_cost = get("PodDeletionCost", g.pod_deletion_cost);
    g.logarithmic_scale_down = get("LogarithmicScaleDown", g.logarithmic_scale_down);
    g.deployment_replica_set_terminating_replicas = get(
        "DeploymentReplicaSetTerminatingReplicas",
        g.deployment_replica_set_terminating_replicas,
    );
    g.stale_controller_consistency_replica_set = get(
        "StaleControllerConsistencyReplicaSet",
        g.stale_controller_consistency_replica_set,
    );
    g
}

// ---------------------------------------------------------------------------------------
// selector, slowstart, expectations

fn judge_selector(case: &Value) -> Judged {
    let name = name_of(case);
    let selector: Option<replicore::LabelSelector> = parse(&name, "selector", &case["selector"])?;
    let labels: Option<BTreeMap<String, String>> = parse(&name, "labels", &case["labels"])?;
    let want = &case["expect"];
    let compiled = Selector::compile(selector.as_ref());
    check(
        &name,
        "error",
        want["error"].as_bool(),
        Some(compiled.is_err()),
    )?;
    let matches = compiled.ok().map(|s| s.matches(labels.as_ref()));
    check(&name, "matches", want["matches"].as_bool(), matches)
}

fn judge_slowstart(case: &Value) -> Judged {
    let name = name_of(case);
    let input = &case["input"];
    let count = input["count"].as_u64().unwrap_or(0) as usize;
    let initial = input["initialBatchSize"].as_u64().unwrap_or(1) as usize;
    let fail_on: BTreeSet<u64> = input["failOnCalls"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default();
    let r = slowstart::run(count, initial, |i| fail_on.contains(&(i as u64 + 1)));
    let want = &case["expect"];
    check(
        &name,
        "successes",
        want["successes"].as_u64(),
        Some(r.successes as u64),
    )?;
    check(&name, "calls", want["calls"].as_u64(), Some(r.calls as u64))?;
    let batches: Vec<u64> = r.batches.iter().map(|b| *b as u64).collect();
    check(
        &name,
        "batchSizes",
        want["batchSizes"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_u64).collect::<Vec<_>>()),
        Some(batches),
    )?;
    check(
        &name,
        "error",
        want["error"].as_bool(),
        Some(r.first_failure.is_some()),
    )
}

fn judge_expectations(case: &Value) -> Judged {
    let name = name_of(case);
    let mut now = Time::from_unix_seconds(1_790_000_000);
    let mut e = Expectations::none();
    for (i, op) in case["ops"].as_array().into_iter().flatten().enumerate() {
        let n = |k: &str| op[k].as_i64().unwrap_or(0);
        e = match op["op"].as_str().unwrap_or("") {
            "expectCreations" => e.expect_creations(n("n"), now),
            "expectDeletions" => e.expect_deletions(strings(&op["keys"]), now),
            "setExpectations" => e.set(n("add"), n("del"), now),
            "creationObserved" => e.creation_observed(),
            "deletionObserved" => e.deletion_observed(op["key"].as_str().unwrap_or("")),
            "lowerExpectations" => e.lower(n("add"), n("del")),
            "raiseExpectations" => e.raise(n("add"), n("del")),
            "advanceTime" => {
                let secs = op["seconds"].as_f64().unwrap_or(0.0);
                now = now.plus(Duration::from_nanos((secs * 1e9) as i64));
                e
            }
            "deleteExpectations" => e.deleted(),
            "creationObservedOtherKey" => e,
            other => return Err(fail(&name, &format!("ops[{i}].op"), "a known op", other)),
        };
        let want = &op["expect"];
        let field = |f: &str| format!("ops[{i}] ({}).{f}", op["op"].as_str().unwrap_or(""));
        check(
            &name,
            &field("satisfied"),
            want["satisfied"].as_bool(),
            Some(e.satisfied(now)),
        )?;
        check(
            &name,
            &field("exists"),
            want["exists"].as_bool(),
            Some(e.record().is_some()),
        )?;
        let (add, del, keys) = match e.record() {
            Some(ExpectationsRecord {
                add,
                del,
                deletion_keys,
                ..
            }) => (*add, *del, deletion_keys.iter().cloned().collect()),
            None => (0, 0, Vec::new()),
        };
        check(&name, &field("add"), want["add"].as_i64(), Some(add))?;
        check(&name, &field("del"), want["del"].as_i64(), Some(del))?;
        check(&name, &field("delKeys"), strings(&want["delKeys"]), keys)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// status

/// Drops `lastTransitionTime` of conditions whose type the input status did not have
/// (the call added them with the wall clock).
fn without_new_condition_times(status: &mut Value, before: &ReplicaSetStatus) {
    let had: BTreeSet<&str> = before
        .conditions
        .iter()
        .flatten()
        .map(|c| c.type_.as_str())
        .collect();
    if let Some(conds) = status.get_mut("conditions").and_then(Value::as_array_mut) {
        for c in conds {
            let t = c["type"].as_str().unwrap_or("").to_owned();
            if !had.contains(t.as_str()) {
                if let Some(o) = c.as_object_mut() {
                    o.remove("lastTransitionTime");
                }
            }
        }
    }
}

fn judge_status(case: &Value) -> Judged {
    let name = name_of(case);
    let input = &case["input"];
    let now = time(&name, &input["now"])?;
    let rs: ReplicaSet = parse(&name, "replicaSet", &input["replicaSet"])?;
    let active: Vec<Pod> = parse(&name, "activePods", &input["activePods"])?;
    let terminating: Vec<Pod> = parse(&name, "terminatingPods", &input["terminatingPods"])?;
    let g = gates(&input["featureGates"]);
    let kind = if input["controllerFeatures"]["EnableStatusTerminatingReplicas"]
        .as_bool()
        .unwrap_or(true)
    {
        OwnerKind::replica_set()
    } else {
        OwnerKind::replication_controller()
    };
    let refs: Vec<&Pod> = active.iter().collect();
    let got = status::calculate(
        &rs,
        &refs,
        terminating.len(),
        StatusContext {
            gates: &g,
            owner_kind: &kind,
            manage_error: input["manageReplicasError"].as_str(),
            now,
            wall_clock: now,
        },
    );
    let mut got = serde_json::to_value(&got).unwrap_or(Value::Null);
    let mut want = case["expect"]["status"].clone();
    without_new_condition_times(&mut got, &rs.status);
    without_new_condition_times(&mut want, &rs.status);
    check(&name, "status", want, got)
}

// ---------------------------------------------------------------------------------------
// rank

/// Checks that `order` (names) is a linear extension of `groups`.
fn check_linear_extension(case: &str, field: &str, groups: &Value, order: &[String]) -> Judged {
    let mut group_of: HashMap<&str, usize> = HashMap::new();
    for (gi, g) in groups.as_array().into_iter().flatten().enumerate() {
        for n in g.as_array().into_iter().flatten() {
            if let Some(n) = n.as_str() {
                group_of.insert(n, gi);
            }
        }
    }
    let mut last = 0;
    for (pos, n) in order.iter().enumerate() {
        let Some(&g) = group_of.get(n.as_str()) else {
            continue;
        };
        if g < last {
            return Err(fail(
                case,
                field,
                format!("a linear extension of the rank groups; {n} belongs to group {g}"),
                format!("{n} at position {pos}, after a pod of group {last}"),
            ));
        }
        last = g;
    }
    Ok(())
}

/// Deletion-set judging shared by rank and sync.
fn check_delete_set(case: &str, field: &str, want: &Value, got: &[String]) -> Judged {
    let must: BTreeSet<String> = strings(&want["mustDelete"]).into_iter().collect();
    let may: BTreeSet<String> = strings(&want["mayDelete"]).into_iter().collect();
    let count = want["mayDeleteCount"].as_u64().unwrap_or(0) as usize;
    let got_set: BTreeSet<String> = got.iter().cloned().collect();
    if let Some(missing) = must.iter().find(|m| !got_set.contains(*m)) {
        return Err(fail(case, field, format!("must delete {missing}"), got));
    }
    if let Some(extra) = got_set
        .iter()
        .find(|g| !must.contains(*g) && !may.contains(*g))
    {
        return Err(fail(
            case,
            field,
            "deletions within mustDelete ∪ mayDelete",
            format!("{extra} deleted"),
        ));
    }
    let from_may = got_set.iter().filter(|g| may.contains(*g)).count();
    check(
        case,
        &format!("{field} taken from mayDelete"),
        count,
        from_may,
    )
}

fn judge_rank(case: &Value) -> Judged {
    let name = name_of(case);
    let now = time(&name, &case["now"])?;
    let mut g = gates(&case["featureGates"]);
    if case
        .get("featureGates")
        .and_then(|f| f.get("PodDeletionCost"))
        .is_none()
    {
        g.pod_deletion_cost = true;
    }
    let pods: Vec<Pod> = parse(&name, "pods", &case["pods"])?;
    let extra: Vec<Pod> = parse(&name, "relatedPods", &case["relatedPods"])?;
    let from_pods: BTreeSet<String> = strings(&case["relatedPodsFromPods"]).into_iter().collect();
    let mut related: Vec<&Pod> = pods
        .iter()
        .filter(|p| from_pods.contains(p.name()))
        .collect();
    related.extend(extra.iter());
    let candidates: Vec<&Pod> = pods.iter().collect();
    let ranked = rank::rank(&candidates, &related, now, &g);
    let order: Vec<String> = ranked
        .iter()
        .filter_map(|r| candidates.get(r.index).map(|p| p.name().to_owned()))
        .collect();
    let want = &case["expect"];
    // 1. a permutation, and a linear extension of the rank groups
    let mut sorted_order = order.clone();
    sorted_order.sort();
    let mut all: Vec<String> = pods.iter().map(|p| p.name().to_owned()).collect();
    all.sort();
    check(&name, "order is a permutation of pods", all, sorted_order)?;
    check_linear_extension(&name, "order", &want["rankGroups"], &order)?;
    // 2. deletions
    let diff = case["diff"].as_u64().unwrap_or(0) as usize;
    let deleted: Vec<String> = order.iter().take(diff).cloned().collect();
    check_delete_set(&name, "delete", want, &deleted)?;
    // 3. exact extras: ranks and the comparator
    if let Some(ranks) = want["ranks"].as_object() {
        for r in &ranked {
            let Some(p) = candidates.get(r.index) else {
                continue;
            };
            let expected = ranks.get(p.name()).and_then(Value::as_u64);
            check(
                &name,
                &format!("ranks[{}]", p.name()),
                expected,
                Some(r.facts.colocated as u64),
            )?;
        }
    }
    let by_name: HashMap<&str, (&Pod, usize)> = ranked
        .iter()
        .filter_map(|r| {
            candidates
                .get(r.index)
                .map(|p| (p.name(), (*p, r.facts.colocated)))
        })
        .collect();
    for s in want["lessSamples"].as_array().into_iter().flatten() {
        let (Some(a), Some(b), Some(less)) = (s[0].as_str(), s[1].as_str(), s[2].as_bool()) else {
            continue;
        };
        let (Some(&pa), Some(&pb)) = (by_name.get(a), by_name.get(b)) else {
            return Err(fail(&name, "lessSamples", "known pods", (a, b)));
        };
        check(
            &name,
            &format!("Less({a}, {b})"),
            less,
            rank::upstream_less(pa, pb, now, &g),
        )?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// sync: the runner plays the host and the fake clientset

fn api_error(kind: &str, resource_name: &str, message_detail: &str) -> ApiError {
    match kind {
        "NotFound" => ApiError {
            reason: "NotFound".into(),
            message: format!("pods \"{resource_name}\" not found"),
            code: Some(404),
            causes: vec![],
        },
        "Conflict" => ApiError {
            reason: "Conflict".into(),
            message: format!(
                "Operation cannot be fulfilled on pods \"{resource_name}\": the object has been modified; please apply your changes to the latest version and try again"
            ),
            code: Some(409),
            causes: vec![],
        },
        "Forbidden" => ApiError {
            reason: "Forbidden".into(),
            message: format!(
                "pods \"{resource_name}\" is forbidden: exceeded quota: compute-resources, requested: requests.cpu=100m, used: requests.cpu=4, limited: requests.cpu=4"
            ),
            code: Some(403),
            causes: vec![],
        },
        "NamespaceTerminating" => ApiError {
            reason: "Forbidden".into(),
            message: format!(
                "pods \"{resource_name}\" is forbidden: unable to create new content in namespace because it is being terminated"
            ),
            code: Some(403),
            causes: vec!["NamespaceTerminating".into()],
        },
        _ => ApiError {
            reason: "InternalError".into(),
            message: format!("Internal error occurred: {message_detail}"),
            code: Some(500),
            causes: vec![],
        },
    }
}

struct SyncRun {
    adopted: BTreeSet<String>,
    adopt_failed: BTreeSet<String>,
    released: BTreeSet<String>,
    release_failed: BTreeSet<String>,
}

fn judge_sync(case: &Value) -> Judged {
    let name = name_of(case);
    let input = &case["input"];
    let want = &case["expect"];
    let now = time(&name, &input["now"])?;
    let owner: ReplicaSet = parse(&name, "replicaSet", &input["replicaSet"])?;
    let live: Option<ReplicaSet> = parse(&name, "apiReplicaSet", &input["apiReplicaSet"])?;
    let others: Vec<ReplicaSet> = parse(&name, "otherReplicaSets", &input["otherReplicaSets"])?;
    let pods: Vec<Pod> = parse(&name, "pods", &input["pods"])?;
    let expectations = match input["expectationsBefore"].as_object() {
        None => Expectations::none(),
        Some(e) => {
            let age = e.get("ageSeconds").and_then(Value::as_f64).unwrap_or(0.0);
            Expectations(Some(ExpectationsRecord {
                add: e.get("add").and_then(Value::as_i64).unwrap_or(0),
                del: e.get("del").and_then(Value::as_i64).unwrap_or(0),
                timestamp: now.plus(Duration::from_nanos(-((age * 1e9) as i64))),
                deletion_keys: e
                    .get("delKeys")
                    .map(strings)
                    .unwrap_or_default()
                    .into_iter()
                    .collect(),
            }))
        }
    };
    let config = Config {
        burst_replicas: input["burstReplicas"].as_u64().unwrap_or(500) as usize,
        feature_gates: gates(&input["featureGates"]),
        ..Config::default()
    };
    let sync_input = SyncInput {
        now,
        owner: owner.clone(),
        other_owners: others,
        pods: pods.into(),
        expectations: expectations.clone(),
        cache_is_fresh: true,
    };
    let plan = replicore::plan(&sync_input, &config)
        .map_err(|e| fail(&name, "plan", "a plan", e.to_string()))?;
    let failures = &input["failures"];

    // Claims.
    let patch_fail = failures["patchFail"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut run = SyncRun {
        adopted: BTreeSet::new(),
        adopt_failed: BTreeSet::new(),
        released: BTreeSet::new(),
        release_failed: BTreeSet::new(),
    };
    let mut claims = ClaimOutcome::default();
    let mut allowed = Ok(());
    if plan.needs_owner_recheck {
        let live_owner = LiveOwner::Found(Box::new(live.clone().unwrap_or_else(|| owner.clone())));
        allowed = plan.adoption_allowed(&live_owner);
        claims.live_owner = Some(live_owner);
    }
    for c in &plan.claims {
        let adopt = c.kind == replicore::claim::ClaimKind::Adopt;
        if adopt && allowed.is_err() {
            claims.results.push(CallResult::Skipped);
            continue;
        }
        let result = match patch_fail.get(&c.name).and_then(Value::as_str) {
            Some(kind) => CallResult::Error(api_error(kind, &c.name, "fake patch failure")),
            None => CallResult::ok(),
        };
        let ok = matches!(result, CallResult::Ok { .. });
        let set = match (adopt, ok) {
            (true, true) => &mut run.adopted,
            (true, false) => &mut run.adopt_failed,
            (false, true) => &mut run.released,
            (false, false) => &mut run.release_failed,
        };
        set.insert(c.name.clone());
        claims.results.push(result);
    }
    let manage = plan
        .manage_after(&claims)
        .map_err(|e| fail(&name, "manage_after", "a manage step", e.to_string()))?;

    // Manage.
    let mut outcome = SyncOutcome {
        claims,
        ..SyncOutcome::default()
    };
    let mut created_pod: Option<Value> = None;
    match &manage {
        Manage::Create(c) => {
            let fail_on: BTreeSet<u64> = failures["createFailOnCalls"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default();
            let err_kind = failures["createError"].as_str().unwrap_or("InternalError");
            let gen = c.pod["metadata"]["generateName"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            while let Some(n) = c.next_batch(&outcome.creates) {
                for _ in 0..n {
                    let call = outcome.creates.len() as u64 + 1;
                    created_pod.get_or_insert_with(|| c.pod.clone());
                    outcome.creates.push(if fail_on.contains(&call) {
                        CallResult::Error(api_error(err_kind, &gen, "fake create failure"))
                    } else {
                        CallResult::created(format!("{gen}z{call:04}"))
                    });
                }
            }
        }
        Manage::Delete(d) => {
            let delete_fail = failures["deleteFail"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            for v in &d.victims {
                outcome
                    .deletes
                    .push(match delete_fail.get(&v.name).and_then(Value::as_str) {
                        Some(kind) => {
                            CallResult::Error(api_error(kind, &v.name, "fake delete failure"))
                        }
                        None => CallResult::ok(),
                    });
            }
        }
        Manage::Nothing { .. } => {}
    }
    let done = replicore::complete(&plan, &outcome)
        .map_err(|e| fail(&name, "complete", "a completion", e.to_string()))?;

    // Status write with upstream's single retry.
    let status_mode = failures["statusUpdate"].as_str().unwrap_or("ok");
    let (written, calls, write_result) = match &done.status {
        None => (None, 0, Ok(())),
        Some(s) => match status_mode {
            "failAlways" => (
                None,
                2,
                Err(format!("Operation cannot be fulfilled on replicasets.apps \"{}\": the object has been modified; please apply your changes to the latest version and try again", owner.metadata.name)),
            ),
            "failOnce" => (Some(s.clone()), 2, Ok(())),
            _ => (Some(s.clone()), 1, Ok(())),
        },
    };
    let write_failed = write_result.is_err();
    let requeue = done.requeue_after_status_write(write_result);

    // Judge.
    let n = &name;
    check(
        n,
        "creates.attempted",
        want["creates"]["attempted"].as_u64(),
        Some(done.create_calls as u64),
    )?;
    let batches: Vec<u64> = done.create_batches.iter().map(|b| *b as u64).collect();
    let want_batches: Vec<u64> = want["createBatches"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
        .collect();
    check(n, "createBatches", want_batches, batches)?;
    judge_created_pod(n, &want["createdPodTemplate"], created_pod.as_ref(), &owner)?;
    let victims: Vec<String> = match &done.manage {
        Manage::Delete(d) => d.victims.iter().map(|v| v.name.clone()).collect(),
        _ => Vec::new(),
    };
    check(
        n,
        "deletes.count",
        want["deletes"]["count"].as_u64(),
        Some(victims.len() as u64),
    )?;
    if !victims.is_empty() || want["deletes"]["count"].as_u64() != Some(0) {
        check_delete_set(n, "deletes", &want["deletes"], &victims)?;
    }
    let set = |v: &Value| strings(v).into_iter().collect::<BTreeSet<_>>();
    check(n, "adopted", set(&want["adopted"]), run.adopted)?;
    check(
        n,
        "adoptFailed",
        set(&want["adoptFailed"]),
        run.adopt_failed,
    )?;
    check(n, "released", set(&want["released"]), run.released)?;
    check(
        n,
        "releaseFailed",
        set(&want["releaseFailed"]),
        run.release_failed,
    )?;
    check(
        n,
        "statusUpdateCalls",
        want["statusUpdateCalls"].as_u64(),
        Some(calls),
    )?;
    let mut got_status = written
        .map(|s| serde_json::to_value(s).unwrap_or(Value::Null))
        .unwrap_or(Value::Null);
    let mut want_status = want["statusWritten"].clone();
    without_new_condition_times(&mut got_status, &owner.status);
    without_new_condition_times(&mut want_status, &owner.status);
    check(n, "statusWritten", want_status, got_status)?;
    let requeue_secs = match &requeue {
        Requeue::After { after } => Some(after.as_seconds_f64()),
        _ => None,
    };
    check(
        n,
        "requeueAfterSeconds",
        want["requeueAfterSeconds"].as_f64(),
        requeue_secs,
    )?;
    let error = done.error.is_some() || write_failed;
    check(n, "error", want["error"].as_bool(), Some(error))?;
    if let Requeue::RateLimited { .. } = requeue {
        check(
            n,
            "error (rate-limited requeue)",
            Some(true),
            want["error"].as_bool(),
        )?;
    }

    // Expectations: before → recorded before acting → corrections.
    let mut e = expectations;
    if let Some(change) = done.manage.expectations() {
        e = change.apply(e, now);
    }
    for change in &done.expectations {
        e = change.apply(e, now);
    }
    let want_e = &want["expectationsAfter"];
    if want_e.is_null() {
        check(
            n,
            "expectationsAfter",
            None,
            e.record().map(|r| (r.add, r.del)),
        )?;
    } else {
        let Some(r) = e.record() else {
            return Err(fail(n, "expectationsAfter", want_e, "no record"));
        };
        check(
            n,
            "expectationsAfter.add",
            want_e["add"].as_i64(),
            Some(r.add),
        )?;
        let got_keys: BTreeSet<String> = r.deletion_keys.iter().cloned().collect();
        let failed: BTreeSet<String> = match &done.manage {
            Manage::Delete(d) => d
                .victims
                .iter()
                .zip(&outcome.deletes)
                .filter(|(_, r)| r.as_error().is_some())
                .map(|(v, _)| format!("{}/{}", v.namespace, v.name))
                .collect(),
            _ => BTreeSet::new(),
        };
        let consistent: BTreeSet<String> = match &done.manage {
            Manage::Delete(d) => d
                .victims
                .iter()
                .map(|v| format!("{}/{}", v.namespace, v.name))
                .filter(|k| !failed.contains(k))
                .collect(),
            _ => got_keys.clone(),
        };
        if strings(&want["deletes"]["mayDelete"]).is_empty() {
            check(
                n,
                "expectationsAfter.del",
                want_e["del"].as_i64(),
                Some(r.del),
            )?;
            check(
                n,
                "expectationsAfter.satisfied",
                want_e["satisfied"].as_bool(),
                Some(e.satisfied(now)),
            )?;
            check(
                n,
                "expectationsAfter.delKeys",
                set(&want_e["delKeys"]),
                got_keys,
            )?;
        } else {
            // Which tied pods go is free; what follows from the choice (failed deletes
            // observed, keys still awaited) must be consistent with it.
            let del = consistent.len() as i64;
            check(
                n,
                "expectationsAfter.del (consistent with the chosen deletions)",
                del,
                r.del,
            )?;
            let satisfied = r.add <= 0 && del <= 0;
            check(
                n,
                "expectationsAfter.satisfied (consistent)",
                satisfied,
                e.satisfied(now),
            )?;
            check(
                n,
                "expectationsAfter.delKeys (consistent with the chosen deletions)",
                consistent,
                got_keys,
            )?;
        }
    }
    Ok(())
}

fn judge_created_pod(case: &str, want: &Value, got: Option<&Value>, owner: &ReplicaSet) -> Judged {
    match (want.is_null(), got) {
        (true, None) => Ok(()),
        (true, Some(g)) => Err(fail(case, "createdPodTemplate", Value::Null, g)),
        (false, None) => Err(fail(case, "createdPodTemplate", want, "no create call")),
        (false, Some(g)) => {
            let meta = &g["metadata"];
            let norm = |v: &Value| if v.is_null() { json!({}) } else { v.clone() };
            let norm_list = |v: &Value| if v.is_null() { json!([]) } else { v.clone() };
            check(
                case,
                "createdPodTemplate.namespace",
                want["namespace"].clone(),
                meta["namespace"].clone(),
            )?;
            check(
                case,
                "createdPodTemplate.generateName",
                want["generateName"].clone(),
                meta["generateName"].clone(),
            )?;
            check(
                case,
                "createdPodTemplate.labels",
                norm(&want["labels"]),
                norm(&meta["labels"]),
            )?;
            check(
                case,
                "createdPodTemplate.annotations",
                norm(&want["annotations"]),
                norm(&meta["annotations"]),
            )?;
            check(
                case,
                "createdPodTemplate.finalizers",
                norm_list(&want["finalizers"]),
                norm_list(&meta["finalizers"]),
            )?;
            check(
                case,
                "createdPodTemplate.ownerReferences",
                want["ownerReferences"].clone(),
                meta["ownerReferences"].clone(),
            )?;
            let spec_equal = g["spec"] == owner.spec.template.spec;
            check(
                case,
                "createdPodTemplate.specEqualsTemplateSpec",
                want["specEqualsTemplateSpec"].as_bool(),
                Some(spec_equal),
            )
        }
    }
}

// ---------------------------------------------------------------------------------------
// deployment-sync: the runner plays the fake clientset of DEPLOYMENT.md

use replicore::deployment::{
    ApiCall, ApiResult, DeploymentSync, DeploymentSyncInput, ProgressRequeue, Step,
};

/// Judge `newReplicaSetHash` (only once the engine hashes as upstream does).
const JUDGE_DEPLOYMENT_HASH: bool = true;

/// Missing, `null`, `{}` and `[]` are alike; everything else compared as is.
fn dep_norm(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let m: serde_json::Map<String, Value> = o
                .iter()
                .map(|(k, v)| (k.clone(), dep_norm(v)))
                .filter(|(_, v)| !v.is_null())
                .collect();
            if m.is_empty() {
                Value::Null
            } else {
                Value::Object(m)
            }
        }
        Value::Array(a) if a.is_empty() => Value::Null,
        Value::Array(a) => Value::Array(a.iter().map(dep_norm).collect()),
        other => other.clone(),
    }
}

/// The API error the fake answers for an injected (or natural) failure.
fn dep_api_error(kind: &str, resource: &str, name: &str) -> ApiError {
    let kind_name = if resource == "deployments" {
        "Deployment"
    } else {
        "ReplicaSet"
    };
    let (reason, message, code, causes) = match kind {
        "Conflict" => ("Conflict", format!("Operation cannot be fulfilled on {resource}.apps \"{name}\": the object has been modified; please apply your changes to the latest version and try again"), 409, vec![]),
        "Forbidden" => ("Forbidden", format!("{resource}.apps \"{name}\" is forbidden: exceeded quota: compute-resources"), 403, vec![]),
        "NamespaceTerminating" => ("Forbidden", format!("{resource}.apps \"{name}\" is forbidden: unable to create new content in namespace because it is being terminated"), 403, vec!["NamespaceTerminating".to_owned()]),
        "NotFound" => ("NotFound", format!("{resource}.apps \"{name}\" not found"), 404, vec![]),
        "AlreadyExists" => ("AlreadyExists", format!("{resource}.apps \"{name}\" already exists"), 409, vec![]),
        "Invalid" => ("Invalid", format!("{kind_name}.apps \"{name}\" is invalid"), 422, vec![]),
        _ => ("InternalError", "Internal error occurred: etcdserver: request timed out".to_owned(), 500, vec![]),
    };
    ApiError {
        reason: reason.into(),
        message,
        code: Some(code),
        causes,
    }
}

/// One injected failure and how many matching calls it has seen.
struct DepFailure {
    spec: Value,
    seen: u64,
}

/// The fake API of DEPLOYMENT.md: answers one call, records the action.
struct FakeApi<'a> {
    input: &'a Value,
    failures: Vec<DepFailure>,
    names: BTreeSet<(String, String)>,
    actions: Vec<Value>,
}

impl<'a> FakeApi<'a> {
    fn new(input: &'a Value) -> Self {
        let mut names = BTreeSet::new();
        for rs in input["replicaSets"]
            .as_array()
            .into_iter()
            .chain(input["apiOnlyReplicaSets"].as_array())
            .flatten()
        {
            let m = &rs["metadata"];
            names.insert((
                m["namespace"].as_str().unwrap_or("").to_owned(),
                m["name"].as_str().unwrap_or("").to_owned(),
            ));
        }
        let failures = input["failures"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| DepFailure {
                spec: f.clone(),
                seen: 0,
            })
            .collect();
        FakeApi {
            input,
            failures,
            names,
            actions: Vec::new(),
        }
    }

    fn answer(&mut self, call: &ApiCall) -> ApiResult {
        let (verb, resource, sub) = (call.verb(), call.resource(), call.subresource());
        let (ns, name) = (call.namespace().to_owned(), call.name().to_owned());
        let mut injected = None;
        for f in &mut self.failures {
            let s = &f.spec;
            let matches = s["verb"].as_str() == Some(verb)
                && s["resource"].as_str() == Some(resource)
                && s["subresource"].as_str().unwrap_or("") == sub
                && s["name"].as_str().is_none_or(|n| n == name);
            if matches {
                f.seen += 1;
                if Some(f.seen) == s["onCall"].as_u64() && injected.is_none() {
                    injected = s["error"].as_str().map(String::from);
                }
            }
        }
        let mut action = json!({
            "verb": verb, "resource": resource, "subresource": sub,
            "namespace": ns, "name": name,
        });
        let result = if let Some(kind) = &injected {
            action["injected"] = json!(true);
            ApiResult::Error(dep_api_error(kind, resource, &name))
        } else {
            match call {
                ApiCall::GetDeployment { .. } => {
                    let live = if self.input["apiDeployment"].is_null() {
                        self.input["deployment"].clone()
                    } else {
                        self.input["apiDeployment"].clone()
                    };
                    ApiResult::Ok { object: Some(live) }
                }
                ApiCall::CreateReplicaSet { .. }
                    if self.names.contains(&(ns.clone(), name.clone())) =>
                {
                    ApiResult::Error(dep_api_error("AlreadyExists", resource, &name))
                }
                _ => ApiResult::ok(),
            }
        };
        if let (ApiCall::CreateReplicaSet { .. }, ApiResult::Ok { .. }) = (call, &result) {
            self.names.insert((ns.clone(), name.clone()));
        }
        action["result"] = json!(match &result {
            ApiResult::Ok { .. } => "ok".to_owned(),
            ApiResult::Error(e) =>
                if e.reason == "Forbidden" {
                    "Forbidden".to_owned()
                } else {
                    e.reason.clone()
                },
        });
        self.describe(call, &mut action);
        self.actions.push(action);
        result
    }

    /// The action's details as the vectors record them.
    fn describe(&self, call: &ApiCall, action: &mut Value) {
        match call {
            ApiCall::PatchReplicaSet {
                patch_type, patch, ..
            } => {
                action["patchType"] = json!(patch_type);
                action["patch"] = patch.clone();
            }
            ApiCall::CreateReplicaSet { object, .. } | ApiCall::UpdateReplicaSet { object, .. } => {
                let m = &object["metadata"];
                let template = &object["spec"]["template"];
                let hash = template["metadata"]["labels"]["pod-template-hash"].clone();
                let mut plus_hash = self.input["deployment"]["spec"]["template"].clone();
                if !plus_hash.is_object() {
                    plus_hash = json!({});
                }
                if !plus_hash["metadata"].is_object() {
                    plus_hash["metadata"] = json!({});
                }
                if !plus_hash["metadata"]["labels"].is_object() {
                    plus_hash["metadata"]["labels"] = json!({});
                }
                plus_hash["metadata"]["labels"]["pod-template-hash"] = hash.clone();
                let mut rs = json!({
                    "name": m["name"], "namespace": m["namespace"], "labels": m["labels"],
                    "annotations": m["annotations"], "ownerReferences": m["ownerReferences"],
                    "replicas": object["spec"]["replicas"],
                    "minReadySeconds": object["spec"]["minReadySeconds"].as_i64().unwrap_or(0),
                    "selector": object["spec"]["selector"],
                    "templateHashLabel": hash,
                    "templateEqualsDeploymentTemplatePlusHash": dep_norm(template) == dep_norm(&plus_hash),
                });
                if let ApiCall::UpdateReplicaSet {
                    name, namespace, ..
                } = call
                {
                    let before = self.input["replicaSets"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .find(|r| {
                            r["metadata"]["name"].as_str() == Some(name)
                                && r["metadata"]["namespace"].as_str() == Some(namespace)
                        });
                    rs["templateUnchanged"] =
                        json!(before.is_some_and(
                            |b| dep_norm(&b["spec"]["template"]) == dep_norm(template)
                        ));
                }
                action["replicaSet"] = rs;
            }
            ApiCall::UpdateDeploymentStatus { object, .. } => {
                action["status"] = object["status"].clone();
                action["annotations"] = object["metadata"]["annotations"].clone();
            }
            ApiCall::UpdateDeployment { object, .. } => {
                action["template"] = object["spec"]["template"].clone();
                action["annotations"] = object["metadata"]["annotations"].clone();
            }
            ApiCall::GetDeployment { .. } | ApiCall::DeleteReplicaSet { .. } => {}
        }
    }
}

/// What one run of the engine produced, in the vectors' terms.
struct DepOutcome {
    actions: Vec<Value>,
    events: Vec<Value>,
    error: bool,
    error_message: String,
    requeue_after: Option<u64>,
    rate_limited: bool,
}

fn run_deployment_sync(name: &str, input: &Value) -> Result<DepOutcome, Failure> {
    let engine_input = json!({
        "now": input["now"], "featureGates": input["featureGates"], "key": input["key"],
        "deployment": input["deployment"], "replicaSets": input["replicaSets"],
        "pods": input["pods"],
    });
    let parsed = DeploymentSyncInput::from_value(engine_input)
        .map_err(|e| fail(name, "input", "a parsable input", e.to_string()))?;
    let mut machine = DeploymentSync::new(parsed)
        .map_err(|e| fail(name, "input", "a valid input", e.to_string()))?;
    let mut api = FakeApi::new(input);
    let done = loop {
        let step = machine
            .next()
            .map_err(|e| fail(name, "next()", "a step", e.to_string()))?;
        match step {
            Step::Call { call } => {
                if api.actions.len() > 200 {
                    return Err(fail(name, "actions", "at most 200 calls", "more"));
                }
                let r = api.answer(&call);
                machine
                    .report(r)
                    .map_err(|e| fail(name, "report()", "accepted", e.to_string()))?;
            }
            Step::Done { done } => break done,
        }
    };
    let (requeue_after, rate_limited) = match done.requeue {
        ProgressRequeue::None => (None, false),
        ProgressRequeue::After { after } => {
            (Some((after.as_nanos() / 1_000_000_000) as u64), false)
        }
        ProgressRequeue::RateLimited => (None, true),
    };
    Ok(DepOutcome {
        actions: api.actions,
        events: done
            .events
            .iter()
            .map(|e| json!({"type": e.type_, "reason": e.reason, "message": e.message}))
            .collect(),
        error: done.error.is_some(),
        error_message: done.error.map(|e| e.message).unwrap_or_default(),
        requeue_after,
        rate_limited,
    })
}

/// The fields of one action judged exactly (DEPLOYMENT.md, "Judging deployment-sync").
fn judge_action(case: &str, at: &str, want: &Value, got: &Value) -> Judged {
    for k in ["verb", "resource", "namespace", "name", "result"] {
        check(case, &format!("{at}.{k}"), &want[k], &got[k])?;
    }
    check(
        case,
        &format!("{at}.subresource"),
        want["subresource"].as_str().unwrap_or(""),
        got["subresource"].as_str().unwrap_or(""),
    )?;
    let mut fields: Vec<String> = Vec::new();
    if want.get("replicaSet").is_some() {
        for k in [
            "name",
            "namespace",
            "replicas",
            "minReadySeconds",
            "annotations",
            "labels",
            "ownerReferences",
            "selector",
            "templateHashLabel",
            "templateEqualsDeploymentTemplatePlusHash",
            "templateUnchanged",
        ] {
            fields.push(format!("replicaSet.{k}"));
        }
    }
    for k in ["status", "annotations", "template", "patchType", "patch"] {
        if want.get(k).is_some() || got.get(k).is_some() {
            fields.push(k.to_owned());
        }
    }
    for f in fields {
        let path: Vec<&str> = f.split('.').collect();
        let pick = |v: &Value| path.iter().fold(v.clone(), |v, k| v[*k].clone());
        check(
            case,
            &format!("{at}.{f}"),
            dep_norm(&pick(want)),
            dep_norm(&pick(got)),
        )?;
    }
    Ok(())
}

/// The length of the leading claim phase (`get deployments` / `patch replicasets`).
fn claim_phase(actions: &[Value]) -> usize {
    actions
        .iter()
        .take_while(|a| {
            matches!(
                (a["verb"].as_str(), a["resource"].as_str()),
                (Some("get"), Some("deployments")) | (Some("patch"), Some("replicasets"))
            )
        })
        .count()
}

fn judge_deployment_outcome(case: &str, want: &Value, got: &DepOutcome) -> Judged {
    let want_actions: Vec<Value> = want["actions"].as_array().cloned().unwrap_or_default();
    check(
        case,
        "actions.length",
        want_actions
            .iter()
            .map(|a| format!("{} {} {}", a["verb"], a["resource"], a["name"]))
            .collect::<Vec<_>>(),
        got.actions
            .iter()
            .map(|a| format!("{} {} {}", a["verb"], a["resource"], a["name"]))
            .collect::<Vec<_>>(),
    )
    .or_else(|e| {
        // Only a multiset difference in the claim phase is allowed.
        if want_actions.len() == got.actions.len() && want["claimPatchesUnordered"] == json!(true) {
            Ok(())
        } else {
            Err(e)
        }
    })?;
    let mut start = 0;
    if want["claimPatchesUnordered"] == json!(true) {
        let n = claim_phase(&want_actions);
        check(case, "claim phase length", n, claim_phase(&got.actions))?;
        let key = |a: &Value| dep_norm(a).to_string();
        let mut w: Vec<&Value> = want_actions.iter().take(n).collect();
        let mut g: Vec<&Value> = got.actions.iter().take(n).collect();
        w.sort_by_key(|a| format!("{} {}", a["name"], key(a)));
        g.sort_by_key(|a| format!("{} {}", a["name"], key(a)));
        for (i, (w, g)) in w.iter().zip(&g).enumerate() {
            judge_action(case, &format!("claim phase (sorted)[{i}]"), w, g)?;
        }
        start = n;
    }
    for (i, (w, g)) in want_actions
        .iter()
        .zip(&got.actions)
        .enumerate()
        .skip(start)
    {
        judge_action(case, &format!("actions[{i}]"), w, g)?;
    }
    let want_events: Vec<Value> = want["events"].as_array().cloned().unwrap_or_default();
    check(case, "events", &want_events, &got.events)?;
    check(
        case,
        "error",
        want["error"].as_bool().unwrap_or(false),
        got.error,
    )
    .map_err(|mut f| {
        f.got = format!("{} ({})", f.got, got.error_message);
        f
    })?;
    check(
        case,
        "requeueAfterSeconds",
        want["requeueAfterSeconds"].as_u64(),
        got.requeue_after,
    )?;
    check(
        case,
        "requeueRateLimited",
        want["requeueRateLimited"].as_bool().unwrap_or(false),
        got.rate_limited,
    )
}

/// Every string in `v` with `from` replaced by `to`.
fn replace_in(v: &mut Value, from: &str, to: &str) {
    match v {
        Value::String(s) if s.contains(from) => *s = s.replace(from, to),
        Value::Array(a) => a.iter_mut().for_each(|x| replace_in(x, from, to)),
        Value::Object(o) => {
            let entries: Vec<(String, Value)> = std::mem::take(o).into_iter().collect();
            for (k, mut x) in entries {
                replace_in(&mut x, from, to);
                o.insert(k.replace(from, to), x);
            }
        }
        _ => {}
    }
}

fn judge_deployment_sync(case: &Value) -> Judged {
    let name = name_of(case);
    let want = &case["expect"];
    let mut input = case["input"].clone();
    // Rule 4: without upstream hashing, the engine's hash stands for upstream's, in the
    // cache and the API as in what the engine sends.
    let mut swap = None;
    if !JUDGE_DEPLOYMENT_HASH {
        let template = &input["deployment"]["spec"]["template"];
        let count = input["deployment"]["status"]["collisionCount"]
            .as_i64()
            .map(|c| c as i32);
        if let (Ok(mine), Some(theirs)) = (
            replicore::deployment::hash::pod_template_hash(template, count),
            want["newReplicaSetHash"].as_str(),
        ) {
            for k in ["replicaSets", "apiOnlyReplicaSets", "pods"] {
                replace_in(&mut input[k], theirs, &mine);
            }
            swap = Some((mine, theirs.to_owned()));
        }
    }
    let mut got = run_deployment_sync(&name, &input)?;
    if let Some((mine, theirs)) = &swap {
        for a in got.actions.iter_mut().chain(got.events.iter_mut()) {
            replace_in(a, mine, theirs);
        }
        got.error_message = got.error_message.replace(mine, theirs);
    }
    let first = judge_deployment_outcome(&name, want, &got);
    if first.is_ok() {
        if JUDGE_DEPLOYMENT_HASH {
            let input = &case["input"];
            let template = &input["deployment"]["spec"]["template"];
            let count = input["deployment"]["status"]["collisionCount"]
                .as_i64()
                .map(|c| c as i32);
            let hash =
                replicore::deployment::hash::pod_template_hash(template, count).map_err(|e| {
                    fail(
                        &name,
                        "newReplicaSetHash",
                        &want["newReplicaSetHash"],
                        e.to_string(),
                    )
                })?;
            check(
                &name,
                "newReplicaSetHash",
                want["newReplicaSetHash"].as_str(),
                Some(hash.as_str()),
            )?;
        }
        return Ok(());
    }
    for alt in case["alternatives"].as_array().into_iter().flatten() {
        if judge_deployment_outcome(&name, alt, &got).is_ok() {
            return Ok(());
        }
    }
    first
}
