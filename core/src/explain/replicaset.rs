//! What a sync would do now for each ReplicaSet of a `kubectl get rs,pods -o json`
//! snapshot, and which pods a scale-down would delete, with the deciding rule.
//!
//! Explain decides nothing itself: it parses the snapshot, runs [`replicaset::plan()`] once per
//! ReplicaSet (claims R-30/R-31, manage §9, ranking R-70..R-74) and [`rank::rank`] for a
//! scale-down preview, and counts pods with the predicates of [`pods`] (R-01..R-06).
//!
//! ```
//! use replicore::explain::{explain_json, ExplainOptions, SyncAction};
//! use replicore::Time;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let list = br#"{"apiVersion": "v1", "kind": "List", "items": [
//!   {"apiVersion": "apps/v1", "kind": "ReplicaSet",
//!    "metadata": {"name": "web", "namespace": "default", "uid": "u1"},
//!    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
//!             "template": {"metadata": {"labels": {"app": "web"}}}}}
//! ]}"#;
//! let now = Time::parse("2026-11-21T05:00:00Z")?.ok_or("zero time")?;
//! let explanation = explain_json(list, &ExplainOptions::at(now))?;
//! let web = explanation.owners.first().ok_or("no owner")?;
//! assert!(matches!(&web.sync, SyncAction::Create { count: 2, batches, .. } if batches == &[1, 1]));
//! # Ok(())
//! # }
//! ```

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::claim::ClaimKind;
use crate::config::Config;
use crate::error::{join_path, json_type, Error, Result};
use crate::expectations::Expectations;
use crate::input::{self, SyncInput};
use crate::model::{ObjectList, Pod, ReplicaSet};
use crate::pods::{self, PodCounts};
use crate::replicaset::digest::Pods;
use crate::replicaset::owner;
use crate::replicaset::rank::{self, RankFacts, RankRule};
use crate::replicaset::{self, Halt, Idle, Manage};
use crate::selector::Selector;
use crate::time::Time;
use crate::words::{age, plural};

/// What to explain, and as of when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ExplainOptions {
    /// The controller clock (readiness, availability, ranking buckets).
    pub now: Time,
    /// Preview a scale-down of each explained ReplicaSet to this many replicas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub replicas: Option<i32>,
    /// Explain only the ReplicaSet with this name (or `namespace/name`); the others
    /// still count as its siblings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub owner: Option<String>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// The controller's configuration.
    pub config: Config,
}

impl ExplainOptions {
    /// Every ReplicaSet, no preview, kube-controller-manager v1.36 defaults.
    pub fn at(now: Time) -> Self {
        ExplainOptions {
            now,
            replicas: None,
            owner: None,
            config: Config::default(),
        }
    }
}

/// The explanation of a whole snapshot.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    /// The controller clock of the explanation.
    pub now: Time,
    /// Objects read: ReplicaSets, pods, and items of other kinds (ignored).
    pub replica_sets: usize,
    /// Pods read.
    pub pods: usize,
    /// Items of other kinds, ignored.
    pub ignored: usize,
    /// One per explained ReplicaSet, by namespace and name.
    pub owners: Vec<OwnerExplanation>,
}

/// What one sync of a ReplicaSet would do now.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct OwnerExplanation {
    /// The ReplicaSet's namespace.
    pub namespace: String,
    /// The ReplicaSet's name.
    pub name: String,
    /// `Kind/name` of its controller (a Deployment), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub controller: Option<String>,
    /// `spec.replicas`.
    pub desired: i32,
    /// Its selector, as a label selector string.
    pub selector: String,
    /// `spec.minReadySeconds`.
    pub min_ready_seconds: i32,
    /// The pods it would own once the claims went through.
    pub pods: PodCounts,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// Why the sync would do nothing at all, if so.
    pub halt: Option<Halt>,
    /// Orphans it would adopt and pods it would release (R-30, R-31), by name.
    pub adopt: Vec<String>,
    /// Pods it would release, by name.
    pub release: Vec<String>,
    /// The manage step (§9).
    pub sync: SyncAction,
    /// With [`ExplainOptions::replicas`]: the scale-down preview.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub scale_down: Option<ScaleDown>,
}

/// The manage step of one sync, in a reader's terms.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum SyncAction {
    /// No create and no delete.
    Nothing {
        /// Why not.
        why: Idle,
    },
    /// R-50..R-52: `count` creates in slow-start `batches`.
    Create {
        /// Pods to create.
        count: usize,
        /// The slow-start batches.
        batches: Vec<usize>,
        /// Why every create would fail before any API call (a template without labels).
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        refused: Option<String>,
    },
    /// R-55..R-59: these pods, deleted concurrently.
    Delete {
        /// The pods, first to go first.
        victims: Vec<VictimExplanation>,
    },
}

/// A pod in deletion order, with what the ranking knew about it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct VictimExplanation {
    /// 1 = the first to go.
    pub position: usize,
    /// The pod's namespace.
    pub namespace: String,
    /// The pod's name.
    pub name: String,
    /// The rule that placed it before the next pod of the ranking (`None` when last).
    pub rule: Option<RankRule>,
    /// [`RankRule::describe`] of `rule`.
    pub rule_text: Option<&'static str>,
    /// When it became ready (R-02), if it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub ready_since: Option<Time>,
    #[serde(flatten)]
    /// What the ranking knew about it.
    pub facts: RankFacts,
}

/// Which pods would go if the ReplicaSet were scaled to `replicas`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ScaleDown {
    /// The replica count previewed.
    pub replicas: i32,
    /// Owned active pods now.
    pub active: usize,
    /// Deleted by the first sync (R-55: at most `burstReplicas`); the rest by later ones.
    pub burst: usize,
    /// Every pod that would go, first to go first; empty when `replicas >= active`.
    pub victims: Vec<VictimExplanation>,
}

/// Explains the objects of a v1 List (`items`), mixed kinds as `kubectl get rs,pods -o json`
/// prints them: ReplicaSets and Pods are read, other kinds ignored.
/// (The owners are the items of `config.ownerKind.kind`: `ReplicaSet` by default.)
pub fn explain(items: &[Value], options: &ExplainOptions) -> Result<Explanation> {
    let items = items
        .iter()
        .enumerate()
        .map(|(i, v)| (format!("items[{i}]"), v.clone()))
        .collect();
    explain_items(items, options)
}

/// Explains JSON text: one List (`{"kind": "List", "items": [...]}`, or a `PodList` /
/// `ReplicaSetList`), an array of Lists and objects, or a single ReplicaSet or Pod.
/// Errors name the JSON path, e.g. `items[3].status.conditions[0].lastTransitionTime`.
pub fn explain_json(bytes: &[u8], options: &ExplainOptions) -> Result<Explanation> {
    let items = items_json(bytes, &options.config.owner_kind.kind)?;
    explain_items(items, options)
}

/// The items of [`explain_json`]'s input forms, each with its JSON path.
fn items_json(bytes: &[u8], owner_kind: &str) -> Result<Vec<(String, Value)>> {
    let root: Value = input::parse_json(bytes)?;
    let mut items = Vec::new();
    match root {
        Value::Array(docs) => {
            for (k, doc) in docs.into_iter().enumerate() {
                document(format!("[{k}]"), doc, None, &mut items)?;
            }
        }
        doc => document(String::new(), doc, Some(owner_kind), &mut items)?,
    }
    Ok(items)
}

/// The owners (of `owner_kind`) and pods of a snapshot in [`explain_json`]'s input forms,
/// checked as `explain` checks them (for [`crate::explain::facts::pod_facts_json`]).
pub(crate) fn snapshot_json(bytes: &[u8], owner_kind: &str) -> Result<(Vec<ReplicaSet>, Pods)> {
    let snap = Snapshot::parse(items_json(bytes, owner_kind)?, owner_kind)?;
    Ok((snap.owners, snap.pods))
}

/// One top-level document: a List contributes its items, an object itself. `alone`: the
/// owner kind, when the document is the whole input (and must be a List, owner or Pod).
fn document(
    at: String,
    doc: Value,
    alone: Option<&str>,
    out: &mut Vec<(String, Value)>,
) -> Result<()> {
    let kind = match &doc {
        Value::Object(map) => map.get("kind").and_then(Value::as_str).unwrap_or(""),
        other => {
            return Err(Error::Malformed {
                path: join_path(&at, ""),
                message: format!(
                    "expected {}, got {}",
                    if alone.is_some() {
                        "a List object (kubectl get rs,pods -o json)"
                    } else {
                        "a List or a Kubernetes object"
                    },
                    json_type(other)
                ),
            })
        }
    };
    if kind.ends_with("List") {
        let list: ObjectList = input::from_value(doc).map_err(|e| e.under(&at))?;
        for (i, item) in list.items.into_iter().enumerate() {
            out.push((join_path(&at, &format!("items[{i}]")), item));
        }
        return Ok(());
    }
    if let Some(owner_kind) = alone.filter(|k| kind != *k && kind != "Pod") {
        let got = if kind.is_empty() {
            "no kind".to_owned()
        } else {
            format!("kind {}", crate::error::quoted(kind))
        };
        return Err(Error::Malformed {
            path: join_path(&at, "kind"),
            message: format!(
                "expected a List (kubectl get rs,pods -o json), a {owner_kind} or a Pod; got {got}"
            ),
        });
    }
    out.push((at, doc));
    Ok(())
}

/// The ReplicaSets and pods of a snapshot, checked.
struct Snapshot {
    owners: Vec<ReplicaSet>,
    pods: Pods,
    ignored: usize,
}

impl Snapshot {
    fn parse(items: Vec<(String, Value)>, owner_kind: &str) -> Result<Snapshot> {
        let mut snap = Snapshot {
            owners: Vec::new(),
            pods: Pods::new(),
            ignored: 0,
        };
        // Where each owner and pod key was first seen, for duplicates (E-08).
        let mut owner_at: HashMap<String, String> = HashMap::new();
        let mut pod_at: HashMap<String, String> = HashMap::new();
        for (at, item) in items {
            let kind = item_kind(&at, &item)?;
            if kind == owner_kind {
                let rs: ReplicaSet = input::from_value(item).map_err(|e| e.under(&at))?;
                input::validate_owner(&rs, "").map_err(|e| e.under(&at))?;
                if let Some(first) = owner_at.insert(rs.metadata.key(), at.clone()) {
                    return Err(Error::Malformed {
                        path: join_path(&at, "metadata.name"),
                        message: format!(
                            "{owner_kind} {} is given twice (first at {first})",
                            rs.metadata.key()
                        ),
                    });
                }
                snap.owners.push(rs);
            } else if kind == "Pod" {
                let pod: Pod = input::from_value(item).map_err(|e| e.under(&at))?;
                if pod.name().is_empty() {
                    return Err(Error::Missing {
                        path: join_path(&at, "metadata.name"),
                    });
                }
                if let Some(first) = pod_at.insert(pod.key(), at.clone()) {
                    return Err(Error::DuplicatePod {
                        path: join_path(&at, "metadata.name"),
                        key: pod.key(),
                        first,
                    });
                }
                snap.pods.push(pod);
            } else {
                snap.ignored += 1;
            }
        }
        if snap.owners.is_empty() {
            // Nothing to explain: the list's items hold no owner.
            return Err(Error::Missing {
                path: "items".into(),
            });
        }
        crate::sort::sort_by(&mut snap.owners, |a, b| {
            (&a.metadata.namespace, &a.metadata.name)
                .cmp(&(&b.metadata.namespace, &b.metadata.name))
        });
        Ok(snap)
    }
}

fn item_kind(at: &str, item: &Value) -> Result<String> {
    match item.get("kind") {
        Some(Value::String(kind)) => Ok(kind.clone()),
        Some(other) => Err(Error::Malformed {
            path: join_path(at, "kind"),
            message: format!("expected a string, got {}", json_type(other)),
        }),
        None if item.is_object() => Err(Error::Missing {
            path: join_path(at, "kind"),
        }),
        None => Err(Error::Malformed {
            path: join_path(at, ""),
            message: format!("expected a Kubernetes object, got {}", json_type(item)),
        }),
    }
}

fn explain_items(items: Vec<(String, Value)>, options: &ExplainOptions) -> Result<Explanation> {
    options.config.validate()?;
    if let Some(n) = options.replicas.filter(|n| *n < 0) {
        return Err(Error::Negative {
            path: "replicas".into(),
            value: i64::from(n),
        });
    }
    let snap = Snapshot::parse(items, &options.config.owner_kind.kind)?;
    if let Some(wanted) = &options.owner {
        if !snap.owners.iter().any(|rs| is_named(rs, wanted)) {
            let names: Vec<String> = snap.owners.iter().map(|rs| rs.metadata.key()).collect();
            return Err(Error::Config {
                path: "owner".into(),
                message: format!(
                    "no {} named {} in the input; it has {}",
                    options.config.owner_kind.kind,
                    crate::error::quoted(wanted),
                    names.join(", ")
                ),
            });
        }
    }
    let mut owners = Vec::new();
    for (i, rs) in snap.owners.iter().enumerate() {
        if options.owner.as_ref().is_some_and(|w| !is_named(rs, w)) {
            continue;
        }
        let input = SyncInput {
            now: options.now,
            owner: rs.clone(),
            other_owners: snap
                .owners
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, other)| other.clone())
                .collect(),
            pods: snap.pods.clone(),
            expectations: Expectations::default(),
            cache_is_fresh: true,
        };
        owners.push(explain_owner(&input, options)?);
    }
    Ok(Explanation {
        now: options.now,
        replica_sets: snap.owners.len(),
        pods: snap.pods.len(),
        ignored: snap.ignored,
        owners,
    })
}

/// `name` matches the ReplicaSet's name, `namespace/name` its key.
fn is_named(rs: &ReplicaSet, wanted: &str) -> bool {
    rs.metadata.is_named(wanted)
}

fn explain_owner(input: &SyncInput, options: &ExplainOptions) -> Result<OwnerExplanation> {
    let config = &options.config;
    let rs = &input.owner;
    let now = input.now;
    let plan = replicaset::plan(input, config)?;
    let selector = Selector::compile(rs.spec.selector.as_ref()).ok();
    let owned: Vec<&Pod> = if plan.halt.is_some() {
        Vec::new()
    } else {
        replicaset::claimed_pods(input, config)
    };
    let min_ready = rs.spec.min_ready_seconds;
    let mut counts = PodCounts {
        // Owned and being deleted (R-06, R-34); 0 when the status would not count them (R-81).
        terminating: terminating(input, config, selector.as_ref()),
        ..PodCounts::default()
    };
    for p in &owned {
        counts.add_active(p, min_ready, now);
    }
    let claimed_names = |kind: ClaimKind| {
        plan.claims
            .iter()
            .filter(|c| c.kind == kind)
            .map(|c| c.name.clone())
            .collect()
    };
    let sync = match &plan.manage {
        Manage::Nothing { why } => SyncAction::Nothing { why: *why },
        Manage::Create(c) => SyncAction::Create {
            count: c.count,
            batches: c.batches.clone(),
            refused: c.refused.clone(),
        },
        Manage::Delete(d) => SyncAction::Delete {
            victims: d
                .victims
                .iter()
                .filter_map(|v| Some((input.pods.get(v.pod_index)?, v)))
                .enumerate()
                .map(|(i, (pod, v))| victim(i + 1, pod, v.rule, v.facts.clone()))
                .collect(),
        },
    };
    let scale_down = options
        .replicas
        .map(|target| preview(input, &owned, target, options));
    Ok(OwnerExplanation {
        namespace: rs.metadata.namespace.clone(),
        name: rs.metadata.name.clone(),
        controller: rs
            .metadata
            .controller_ref()
            .map(|r| format!("{}/{}", r.kind, r.name)),
        desired: plan.desired,
        selector: selector.map_or_else(|| "<invalid>".to_owned(), |s| s.to_string()),
        min_ready_seconds: min_ready,
        pods: counts,
        halt: plan.halt.clone(),
        adopt: claimed_names(ClaimKind::Adopt),
        release: claimed_names(ClaimKind::Release),
        sync,
        scale_down,
    })
}

/// Terminating pods the owner controls and selects (R-06, R-34), counted as the status
/// counts them (R-81): 0 when the DeploymentReplicaSetTerminatingReplicas gate is off or
/// the owner is a ReplicationController.
fn terminating(input: &SyncInput, config: &Config, selector: Option<&Selector>) -> usize {
    if !config.feature_gates.counts_terminating(&config.owner_kind) {
        return 0;
    }
    let Some(s) = selector else { return 0 };
    owner::pods_of_owner(&input.owner, &config.owner_kind, &input.pods)
        .iter()
        .filter(|(_, p)| pods::is_terminating(p) && owner::is_claimed_by(p, &input.owner, s))
        .count()
}

/// R-55..R-57 as if `spec.replicas` were `target`: the whole ranking's head.
fn preview(input: &SyncInput, owned: &[&Pod], target: i32, options: &ExplainOptions) -> ScaleDown {
    let keep = usize::try_from(target).unwrap_or(0);
    let excess = owned.len().saturating_sub(keep);
    let victims = if excess == 0 {
        Vec::new()
    } else {
        let related = owner::related_pods(&input.owner, &input.other_owners, &input.pods);
        rank::rank(owned, &related, input.now, &options.config.feature_gates)
            .into_iter()
            .take(excess)
            .filter_map(|r| Some((*owned.get(r.index)?, r)))
            .enumerate()
            .map(|(i, (pod, r))| victim(i + 1, pod, r.rule, r.facts))
            .collect()
    };
    ScaleDown {
        replicas: target,
        active: owned.len(),
        burst: excess.min(options.config.burst_replicas),
        victims,
    }
}

fn victim(
    position: usize,
    pod: &Pod,
    rule: Option<RankRule>,
    facts: RankFacts,
) -> VictimExplanation {
    VictimExplanation {
        position,
        namespace: pod.namespace().to_owned(),
        name: pod.name().to_owned(),
        rule,
        rule_text: rule.map(RankRule::describe),
        ready_since: if pods::is_ready(pod) {
            pods::ready_time(pod)
        } else {
            None
        },
        facts,
    }
}

/// The owners (of kind `owner_kind`) and pods of a `kubectl get rs,pods -o json` List
/// value, checked as `explain` checks them (the simulator's import).
pub fn snapshot_of(list: Value, owner_kind: &str) -> Result<(Vec<ReplicaSet>, Vec<Pod>)> {
    let mut items = Vec::new();
    match list {
        Value::Array(docs) => {
            for (k, doc) in docs.into_iter().enumerate() {
                document(format!("[{k}]"), doc, None, &mut items)?;
            }
        }
        doc => document(String::new(), doc, Some(owner_kind), &mut items)?,
    }
    let snap = Snapshot::parse(items, owner_kind)?;
    Ok((snap.owners, snap.pods.into_vec()))
}

// ---------------------------------------------------------------------------------------
// The plain-text report: what `replicore explain` and examples/explain.rs print

/// The plain-text report of an explanation: a header line, then per ReplicaSet its pods,
/// what a sync would do now and the scale-down preview, victims as a table. The one text
/// the CLI (through wasm, `explainText`) and `examples/explain.rs` print.
pub fn report_text(x: &Explanation) -> String {
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
            f.restarts.saturating_add(f.sidecar_restarts).to_string(),
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
