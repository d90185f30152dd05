//! How an Event is recorded: client-go's `EventCorrelator` (`tools/record/events_cache.go`,
//! `event.go`), which kube-controller-manager runs every Event through before it reaches
//! the API server, as a pure value. Rules EC-01..EC-09:
//!
//! - **EC-01 the Event as made.** `makeEvent`: name `<object name>.<hex of unix nanos>`
//!   (a random UUID when that is not a DNS subdomain), namespace of the object (`default`
//!   when it has none), `count` 1, `firstTimestamp` = `lastTimestamp` = now,
//!   `reportingComponent`/`reportingInstance` = source component/host. Only `Normal` and
//!   `Warning` are recorded.
//! - **EC-02 similar events aggregate.** Events that differ only by message (same source,
//!   object, type, reason, reporting controller and instance: `EventAggregatorByReasonFunc`)
//!   are counted by distinct message; a group older than 600 s (since its last event) starts
//!   afresh. The event whose message makes the 10th distinct one is replaced by a new Event
//!   `(combined from similar events): <message>` (count 1, no reporting fields), observed
//!   under the group's key, and one message is forgotten (so every further new message is
//!   aggregated too).
//! - **EC-03 repeats count on one object.** An event whose key (source, object incl.
//!   fieldPath, type, reason, message — or the group's key for an aggregate) is in the log
//!   takes the logged name and `firstTimestamp`, `count` = logged count + 1, and is written
//!   by a strategic merge PATCH `{count, lastTimestamp, message}`; else it is created.
//! - **EC-04 the log counts dropped events too.** The log is updated before the spam
//!   filter runs, so an event the filter drops still advances the count (and a first
//!   occurrence that is dropped leaves its name in the log: the next PATCH of it gets 404
//!   and the host creates it instead — [`Correlation::Patch`] carries that Event).
//! - **EC-05 the spam filter.** A token bucket per source + object + type
//!   (`getSpamKey`: not the reason), burst 25, refilled at `float32(1/300)` tokens per
//!   second (one per 5 minutes), as `golang.org/x/time/rate` computes it (below). An event
//!   that finds no token is dropped.
//! - **EC-06 the caches are LRUs** of 4096 entries each (`maxLruCacheEntries`): a look-up
//!   or a write makes an entry the most recent, and a write beyond 4096 entries evicts the
//!   least recent.
//! - **EC-07 what the server answered updates the log** (`UpdateState`): after a
//!   successful write, the returned Event is logged under its own full key
//!   ([`EventCorrelator::written`]).
//! - **EC-08 the bucket's arithmetic** (`rate.Limiter.AllowN(now, 1)`): a new bucket
//!   holds 25 tokens; `advance` adds `elapsed.Seconds() * limit` (capped at 25; a `now`
//!   before the last one counts as no time), takes 1, and accepts when the deficit's wait
//!   (`deficit / limit * 1e9`, truncated to whole nanoseconds) is 0; an accepted call
//!   stores the tokens and `now`. All in IEEE doubles, as Go does, from the `now` given.
//! - **EC-09 deviations, each forced by determinism.** Go's `PopAny` forgets an arbitrary
//!   message (map order is random); we forget the smallest (byte order) — a choice upstream
//!   can make. Upstream's clock never repeats a nanosecond; a host's `now` may (a JS `Date`
//!   has milliseconds), so an Event name takes `max(now, last name's nanos + 1)` and names
//!   stay unique. Where upstream names an Event with a random UUID, we derive a UUID-shaped
//!   name from the nanoseconds and the object's name.
//!
//! Keys are the fields joined with no separator, as upstream joins them (so they collide
//! where upstream's do).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, Result};
use crate::time::{Duration, Time};

/// core/v1's event types (`v1.EventTypeNormal`, `v1.EventTypeWarning`): the only two an
/// event may have, for every controller's events.
pub(crate) const NORMAL: &str = "Normal";
/// See [`NORMAL`].
pub(crate) const WARNING: &str = "Warning";

/// `maxLruCacheEntries`: the size of each of the three caches (EC-06).
pub const MAX_LRU_CACHE_ENTRIES: usize = 4096;
/// `defaultAggregateMaxEvents`: distinct messages in a group before it aggregates (EC-02).
pub const AGGREGATE_MAX_EVENTS: usize = 10;
/// `defaultAggregateIntervalInSeconds` (EC-02).
pub const AGGREGATE_INTERVAL: Duration = Duration::from_seconds(600);
/// `defaultSpamBurst` (EC-05).
pub const SPAM_BURST: u32 = 25;
/// `defaultSpamQPS`: `1/300` as the `float32` upstream keeps, widened to `float64` as
/// `rate.Limit` holds it (0.0033333334140479565; a token every 299.99999 s) (EC-05).
pub const SPAM_QPS: f64 = (1.0f32 / 300.0f32) as f64;
/// `EventAggregatorByReasonMessageFunc`'s prefix (EC-02).
pub const COMBINED_PREFIX: &str = "(combined from similar events): ";

/// A reference to the object an Event is about (`v1.ObjectReference`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "EventObjectReference"))]
#[serde(rename_all = "camelCase", default)]
pub struct ObjectReference {
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// The object's kind.
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// The object's namespace.
    pub namespace: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// The object's name.
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// The object's UID.
    pub uid: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// The object's `apiVersion`.
    pub api_version: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// The object's `resourceVersion`.
    pub resource_version: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// The part of the object the event is about (empty: the whole object).
    pub field_path: String,
}

/// Who records (`v1.EventSource`); kube-controller-manager's ReplicaSet controller is
/// `{component: "replicaset-controller"}` with no host.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct EventSource {
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// The component that records (`replicaset-controller`, …).
    pub component: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// The node it runs on (empty for the controllers).
    pub host: String,
}

/// What a controller asks to record (`recorder.Eventf(object, type, reason, message)`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EventToRecord {
    /// The object the event is about.
    pub involved_object: ObjectReference,
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub type_: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// Why (`SuccessfulCreate`, `FailedDelete`, …).
    pub reason: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// The message.
    pub message: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// Who records.
    pub source: EventSource,
}

/// An Event's `metadata` (the fields the recorder sets).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EventMeta {
    /// The Event's name (EC-01).
    pub name: String,
    #[serde(default)]
    /// The Event's namespace (EC-01).
    pub namespace: String,
}

/// A `v1.Event` as the recorder writes it (and as the server answers, for
/// [`EventCorrelator::written`]; other fields are ignored).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "RecordedEvent"))]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// The Event's name and namespace.
    pub metadata: EventMeta,
    /// The object the event is about.
    pub involved_object: ObjectReference,
    #[serde(default)]
    /// Why.
    pub reason: String,
    #[serde(default)]
    /// The message (after aggregation, EC-02).
    pub message: String,
    #[serde(default)]
    /// Who records.
    pub source: EventSource,
    /// Whole seconds, as `metav1.Time` is written.
    pub first_timestamp: Time,
    /// Whole seconds, as `metav1.Time` is written.
    pub last_timestamp: Time,
    #[serde(default)]
    /// How many times it happened (EC-03).
    pub count: i32,
    #[serde(rename = "type", default)]
    /// `Normal` or `Warning`.
    pub type_: String,
    #[serde(default)]
    /// `reportingComponent`: the source's component (EC-01).
    pub reporting_component: String,
    #[serde(default)]
    /// `reportingInstance`: the source's host (EC-01).
    pub reporting_instance: String,
}

/// The strategic merge patch of a repeat (EC-03): exactly the fields that differ between
/// the event and its copy with count 0, lastTimestamp 1970 and no message, which is what
/// `CreateTwoWayMergePatch` emits (keys in this order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EventPatch {
    /// The new count.
    pub count: i32,
    /// The new `lastTimestamp`.
    pub last_timestamp: Time,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    /// The new message, when it changed.
    pub message: String,
}

/// POST this Event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CreateEvent {
    /// The Event to create.
    pub event: Event,
}

/// PATCH (`application/strategic-merge-patch+json`) the Event `namespace/name` with
/// `patch`; if the server answers 404, POST `event` instead (upstream's `recordEvent`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PatchEvent {
    /// The Event's namespace.
    pub namespace: String,
    /// The Event's name.
    pub name: String,
    /// The patch to send.
    pub patch: EventPatch,
    /// The Event to create instead if the server answers 404.
    pub event: Event,
}

/// Why nothing is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum DropReason {
    /// EC-05: the source + object + type has no token left.
    SpamFilter,
}

/// Write nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DropEvent {
    /// Why nothing is written.
    pub reason: DropReason,
}

/// What to do with one event: `{"action": "create" | "patch" | "drop", ...}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum Correlation {
    /// POST a new Event.
    Create(CreateEvent),
    /// PATCH an existing Event (a repeat, EC-03).
    Patch(PatchEvent),
    /// Write nothing (EC-05).
    Drop(DropEvent),
}

/// A group of similar events (EC-02): its distinct messages (fewer than 10) and when the
/// last one came.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "CorrelatorAggregate"))]
#[serde(rename_all = "camelCase")]
struct AggregateRecord {
    /// The aggregate key (the cache's key).
    key: String,
    #[serde(deserialize_with = "bounded_messages")]
    messages: BTreeSet<String>,
    last_timestamp: Time,
}

fn bounded_messages<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeSet<String>, D::Error> {
    let set = BTreeSet::<String>::deserialize(d)?;
    if set.len() >= AGGREGATE_MAX_EVENTS {
        return Err(D::Error::custom(format!(
            "holds {} messages; a group keeps fewer than {AGGREGATE_MAX_EVENTS}",
            set.len()
        )));
    }
    Ok(set)
}

/// An entry of the event log (EC-03): the Event written for a key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "ts",
    derive(ts_rs::TS),
    ts(rename = "CorrelatorObservation")
)]
#[serde(rename_all = "camelCase")]
struct Observation {
    /// The event key, or the aggregate key (the cache's key).
    key: String,
    count: i32,
    first_timestamp: Time,
    name: String,
}

/// The token bucket of a source + object + type (EC-05, EC-08).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "CorrelatorSpamBucket"))]
#[serde(rename_all = "camelCase")]
struct TokenBucket {
    /// The spam key (the cache's key).
    key: String,
    /// The level, as the shortest decimal text of the double (a JSON number would not
    /// survive every JSON parser bit for bit).
    #[serde(serialize_with = "f64_text", deserialize_with = "tokens_text")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    tokens: f64,
    /// When a token was last taken.
    last: Time,
}

fn f64_text<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&v.to_string())
}

fn tokens_text<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let text = String::deserialize(d)?;
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && (-1.0..=f64::from(SPAM_BURST)).contains(&v) => Ok(v),
        _ => Err(D::Error::custom(format!(
            "expected a number from -1 to {SPAM_BURST} as text, got {text:?}"
        ))),
    }
}

impl TokenBucket {
    fn full(key: String) -> Self {
        TokenBucket {
            key,
            tokens: f64::from(SPAM_BURST),
            last: Time::from_unix_nanos(i64::MIN),
        }
    }

    /// `AllowN(now, 1)` (EC-08): whether a token is taken.
    fn try_accept(&mut self, now: Time) -> bool {
        let last = self.last.min(now);
        let tokens =
            (self.tokens + go_seconds(now.since(last)) * SPAM_QPS).min(f64::from(SPAM_BURST)) - 1.0;
        let ok = tokens >= 0.0 || wait_nanos(-tokens) == 0;
        if ok {
            self.last = now;
            self.tokens = tokens;
        }
        ok
    }
}

/// Go's `Duration.Seconds()`: whole seconds plus the remainder's fraction.
fn go_seconds(d: Duration) -> f64 {
    let n = d.as_nanos();
    (n / 1_000_000_000) as f64 + (n % 1_000_000_000) as f64 / 1e9
}

/// `durationFromTokens`: nanoseconds to wait for `tokens`, truncated (saturating) as Go
/// converts a float to `time.Duration`.
fn wait_nanos(tokens: f64) -> i64 {
    let nanos = (tokens / SPAM_QPS) * 1e9;
    if nanos > i64::MAX as f64 {
        i64::MAX
    } else {
        nanos as i64
    }
}

/// A value an [`Lru`] holds: it carries its own key, so that the cache is written as a
/// plain list of values (no `flatten`, which serde reads through a buffer of its own).
trait Keyed {
    fn key(&self) -> &str;
}

macro_rules! keyed {
    ($($t:ty),*) => {$(
        impl Keyed for $t {
            fn key(&self) -> &str {
                &self.key
            }
        }
    )*};
}
keyed!(AggregateRecord, Observation, TokenBucket);

/// A least-recently-used map of at most [`MAX_LRU_CACHE_ENTRIES`] (EC-06), written as a
/// list of its values (each `{key, ...}`) from least to most recently used. The recency
/// index is one non-generic type for the three caches; the values sit in slots.
#[derive(Clone, Debug)]
struct Lru<V> {
    index: LruIndex,
    /// The values, by slot; `None` for a free slot.
    slots: Vec<Option<V>>,
    /// Free slots, reused before the list grows.
    free: Vec<usize>,
}

/// Which keys an [`Lru`] holds, in which slots, in which order of use.
#[derive(Clone, Debug, Default)]
struct LruIndex {
    /// key → (use stamp, slot).
    entries: BTreeMap<String, (u64, usize)>,
    /// use stamp → key, least recent first.
    order: BTreeMap<u64, String>,
    next: u64,
}

impl LruIndex {
    fn stamp(&mut self) -> u64 {
        let s = self.next;
        self.next = self.next.saturating_add(1);
        s
    }

    /// The slot of `key`, made the most recent.
    fn touch(&mut self, key: &str) -> Option<usize> {
        let stamp = self.stamp();
        let entry = self.entries.get_mut(key)?;
        let old = std::mem::replace(&mut entry.0, stamp);
        let slot = entry.1;
        if let Some(k) = self.order.remove(&old) {
            self.order.insert(stamp, k);
        }
        Some(slot)
    }

    /// Adds `key` (not held) in `slot` as the most recent; the slots of the least recent
    /// keys evicted beyond the cap.
    fn insert(&mut self, key: String, slot: usize) -> Vec<usize> {
        let stamp = self.stamp();
        self.order.insert(stamp, key.clone());
        self.entries.insert(key, (stamp, slot));
        let mut evicted = Vec::new();
        while self.entries.len() > MAX_LRU_CACHE_ENTRIES {
            let Some((_, k)) = self.order.pop_first() else {
                break;
            };
            if let Some((_, slot)) = self.entries.remove(&k) {
                evicted.push(slot);
            }
        }
        evicted
    }

    /// The slots, least recent first.
    fn slots(&self) -> impl Iterator<Item = usize> + '_ {
        self.order
            .values()
            .filter_map(|k| self.entries.get(k).map(|e| e.1))
    }
}

impl<V> Default for Lru<V> {
    fn default() -> Self {
        Lru {
            index: LruIndex::default(),
            slots: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<V: Keyed> Lru<V> {
    /// `Get`: the value, made the most recent.
    fn get(&mut self, key: &str) -> Option<&V> {
        let slot = self.index.touch(key)?;
        self.slots.get(slot)?.as_ref()
    }

    /// `Add`: stores the value under its key as the most recent, evicting the least recent
    /// beyond the cap.
    fn add(&mut self, value: V) {
        if let Some(slot) = self.index.touch(value.key()) {
            if let Some(held) = self.slots.get_mut(slot) {
                *held = Some(value);
            }
            return;
        }
        let key = value.key().to_owned();
        let slot = match self.free.pop() {
            Some(slot) => {
                if let Some(free) = self.slots.get_mut(slot) {
                    *free = Some(value);
                }
                slot
            }
            None => {
                self.slots.push(Some(value));
                self.slots.len() - 1
            }
        };
        for gone in self.index.insert(key, slot) {
            if let Some(held) = self.slots.get_mut(gone) {
                *held = None;
            }
            self.free.push(gone);
        }
    }

    fn len(&self) -> usize {
        self.index.entries.len()
    }

    /// The values, least recent first.
    fn iter(&self) -> impl Iterator<Item = &V> {
        self.index
            .slots()
            .filter_map(|slot| self.slots.get(slot).and_then(Option::as_ref))
    }
}

impl<V: Keyed + PartialEq> PartialEq for Lru<V> {
    /// The same entries in the same recency order (the stamps themselves do not matter).
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

/// On the wire, a list of the values (each with its key), least recent first.
#[cfg(feature = "ts")]
impl<V: ts_rs::TS> ts_rs::TS for Lru<V> {
    type WithoutGenerics = Lru<ts_rs::Dummy>;
    type OptionInnerType = Self;

    fn ident(_: &ts_rs::Config) -> String {
        "Array".to_owned()
    }

    fn name(cfg: &ts_rs::Config) -> String {
        format!("Array<{}>", V::name(cfg))
    }

    fn inline(cfg: &ts_rs::Config) -> String {
        format!("Array<{}>", V::inline(cfg))
    }

    fn visit_dependencies(v: &mut impl ts_rs::TypeVisitor)
    where
        Self: 'static,
    {
        V::visit_dependencies(v);
    }

    fn visit_generics(v: &mut impl ts_rs::TypeVisitor)
    where
        Self: 'static,
    {
        V::visit_generics(v);
        v.visit::<V>();
    }
}

impl<V: Keyed + Serialize> Serialize for Lru<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de, V: Keyed + Deserialize<'de>> Deserialize<'de> for Lru<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let list = Vec::<V>::deserialize(d)?;
        if list.len() > MAX_LRU_CACHE_ENTRIES {
            return Err(D::Error::custom(format!(
                "holds {} entries; a cache keeps at most {MAX_LRU_CACHE_ENTRIES}",
                list.len()
            )));
        }
        let mut lru = Lru::default();
        for value in list {
            if lru.index.entries.contains_key(value.key()) {
                return Err(D::Error::custom(format!(
                    "key {:?} is given twice",
                    value.key()
                )));
            }
            lru.add(value);
        }
        Ok(lru)
    }
}

/// The correlator's state (`EventCorrelator`): its three caches and the last Event name's
/// nanoseconds. A plain value: [`Default`] is a fresh recorder's, and it survives a JSON
/// round trip.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "EventCorrelatorState"))]
#[serde(rename_all = "camelCase", default)]
pub struct EventCorrelator {
    /// EC-02: aggregate key → group.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    aggregates: Lru<AggregateRecord>,
    /// EC-03: event key (or aggregate key) → the Event written for it.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    observations: Lru<Observation>,
    /// EC-05: spam key → token bucket.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    spam: Lru<TokenBucket>,
    /// EC-09: the nanoseconds of the last Event name made.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    last_name_nanos: Option<i64>,
}

/// How many entries each cache holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "EventCorrelatorSize"))]
#[serde(rename_all = "camelCase")]
pub struct CorrelatorSize {
    /// Entries of the aggregation cache (EC-02).
    pub aggregates: usize,
    /// Entries of the cache of Events written (EC-03).
    pub observations: usize,
    /// Entries of the spam filter (EC-05).
    pub spam: usize,
}

/// The event after aggregation (EC-02) and the key it is logged under.
struct Aggregated {
    event: Event,
    key: String,
}

impl EventCorrelator {
    /// A correlator with empty caches.
    pub fn new() -> Self {
        Self::default()
    }

    /// The entries held, per cache (each at most [`MAX_LRU_CACHE_ENTRIES`]).
    pub fn size(&self) -> CorrelatorSize {
        CorrelatorSize {
            aggregates: self.aggregates.len(),
            observations: self.observations.len(),
            spam: self.spam.len(),
        }
    }

    /// Upstream's `EventCorrelate` on an event recorded at `now`: create, patch or drop.
    /// A refused event (type neither `Normal` nor `Warning`) changes nothing.
    pub fn correlate(&mut self, event: &EventToRecord, now: Time) -> Result<Correlation> {
        if event.type_ != NORMAL && event.type_ != WARNING {
            return Err(Error::Malformed {
                path: "event.type".into(),
                message: format!(
                    "unsupported event type {:?}: expected \"Normal\" or \"Warning\"",
                    event.type_.chars().take(64).collect::<String>()
                ),
            });
        }
        let made = self.make_event(event, now);
        let aggregated = self.aggregate(made, now);
        let (observed, patch) = self.observe(aggregated);
        if !self.spam_filter_accepts(&observed, now) {
            return Ok(Correlation::Drop(DropEvent {
                reason: DropReason::SpamFilter,
            }));
        }
        Ok(match patch {
            Some(patch) => Correlation::Patch(PatchEvent {
                namespace: observed.metadata.namespace.clone(),
                name: observed.metadata.name.clone(),
                patch,
                event: observed,
            }),
            None => Correlation::Create(CreateEvent { event: observed }),
        })
    }

    /// EC-07 (`UpdateState`): the Event the server returned for a create or patch.
    pub fn written(&mut self, event: &Event) {
        self.observations.add(Observation {
            key: event_key(event),
            count: event.count,
            first_timestamp: event.first_timestamp,
            name: event.metadata.name.clone(),
        });
    }

    /// EC-01 (`makeEvent`).
    fn make_event(&mut self, e: &EventToRecord, now: Time) -> Event {
        let namespace = if e.involved_object.namespace.is_empty() {
            "default".to_owned()
        } else {
            e.involved_object.namespace.clone()
        };
        let at = whole_seconds(now);
        Event {
            metadata: EventMeta {
                name: self.event_name(&e.involved_object.name, now),
                namespace,
            },
            involved_object: e.involved_object.clone(),
            reason: e.reason.clone(),
            message: e.message.clone(),
            source: e.source.clone(),
            first_timestamp: at,
            last_timestamp: at,
            count: 1,
            type_: e.type_.clone(),
            reporting_component: e.source.component.clone(),
            reporting_instance: e.source.host.clone(),
        }
    }

    /// `GenerateEventName` with EC-09's unique nanoseconds.
    fn event_name(&mut self, object: &str, now: Time) -> String {
        let nanos = match self.last_name_nanos {
            Some(last) => now.unix_nanos().max(last.saturating_add(1)),
            None => now.unix_nanos(),
        };
        self.last_name_nanos = Some(nanos);
        let hex = if nanos < 0 {
            format!("-{:x}", nanos.unsigned_abs())
        } else {
            format!("{nanos:x}")
        };
        let name = format!("{object}.{hex}");
        if is_dns1123_subdomain(&name) {
            name
        } else {
            uuid_shaped(nanos, object)
        }
    }

    /// EC-02 (`EventAggregate`).
    fn aggregate(&mut self, event: Event, now: Time) -> Aggregated {
        let key = event_key(&event);
        let group = aggregate_key(&event);
        let mut record = match self.aggregates.get(&group) {
            Some(r) if now.since(r.last_timestamp) <= AGGREGATE_INTERVAL => r.clone(),
            _ => AggregateRecord {
                key: group.clone(),
                messages: BTreeSet::new(),
                last_timestamp: now,
            },
        };
        record.messages.insert(event.message.clone());
        record.last_timestamp = now;
        let aggregate = record.messages.len() >= AGGREGATE_MAX_EVENTS;
        if aggregate {
            // EC-09: upstream's PopAny; the stored group shares the set, so it shrinks too.
            record.messages.pop_first();
        }
        self.aggregates.add(record);
        if !aggregate {
            return Aggregated { event, key };
        }
        let combined = Event {
            metadata: event.metadata,
            involved_object: event.involved_object,
            message: format!("{COMBINED_PREFIX}{}", event.message),
            reason: event.reason,
            source: event.source,
            first_timestamp: event.first_timestamp,
            last_timestamp: event.last_timestamp,
            count: 1,
            type_: event.type_,
            reporting_component: String::new(),
            reporting_instance: String::new(),
        };
        Aggregated {
            event: combined,
            key: group,
        }
    }

    /// EC-03, EC-04 (`eventObserve`): the event to write and, for a repeat, its patch.
    fn observe(&mut self, a: Aggregated) -> (Event, Option<EventPatch>) {
        let mut event = a.event;
        let mut patch = None;
        if let Some(last) = self.observations.get(&a.key) {
            if last.count > 0 {
                event.metadata.name = last.name.clone();
                event.first_timestamp = last.first_timestamp;
                event.count = last.count.saturating_add(1);
                patch = Some(EventPatch {
                    count: event.count,
                    last_timestamp: event.last_timestamp,
                    message: event.message.clone(),
                });
            }
        }
        self.observations.add(Observation {
            key: a.key,
            count: event.count,
            first_timestamp: event.first_timestamp,
            name: event.metadata.name.clone(),
        });
        (event, patch)
    }

    /// EC-05 (`EventSourceObjectSpamFilter.Filter`): whether the event may be written.
    fn spam_filter_accepts(&mut self, event: &Event, now: Time) -> bool {
        let key = spam_key(event);
        let mut bucket = self
            .spam
            .get(&key)
            .cloned()
            .unwrap_or_else(|| TokenBucket::full(key));
        let ok = bucket.try_accept(now);
        self.spam.add(bucket);
        ok
    }
}

/// The result of the pure form, as one value: the decision and the state after it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Correlated {
    /// What to do with the event.
    pub decision: Correlation,
    /// The correlator's state after it.
    pub state: EventCorrelator,
}

/// The pure form of [`EventCorrelator::correlate`]: the decision and the state after it.
pub fn correlate(
    mut state: EventCorrelator,
    event: &EventToRecord,
    now: Time,
) -> Result<(Correlation, EventCorrelator)> {
    let decision = state.correlate(event, now)?;
    Ok((decision, state))
}

/// `now` truncated to whole seconds, as `metav1.Time` is written.
fn whole_seconds(t: Time) -> Time {
    Time::from_unix_seconds(t.unix_nanos().div_euclid(1_000_000_000))
}

/// Fields joined with no separator (`strings.Join(fields, "")`).
fn join(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        out.push_str(p);
    }
    out
}

/// `getEventKey`.
fn event_key(e: &Event) -> String {
    let o = &e.involved_object;
    join(&[
        &e.source.component,
        &e.source.host,
        &o.kind,
        &o.namespace,
        &o.name,
        &o.field_path,
        &o.uid,
        &o.api_version,
        &e.type_,
        &e.reason,
        &e.message,
    ])
}

/// `EventAggregatorByReasonFunc`'s aggregate key (the local key is the message).
fn aggregate_key(e: &Event) -> String {
    let o = &e.involved_object;
    join(&[
        &e.source.component,
        &e.source.host,
        &o.kind,
        &o.namespace,
        &o.name,
        &o.uid,
        &o.api_version,
        &e.type_,
        &e.reason,
        &e.reporting_component,
        &e.reporting_instance,
    ])
}

/// `getSpamKey`.
fn spam_key(e: &Event) -> String {
    let o = &e.involved_object;
    join(&[
        &e.source.component,
        &e.source.host,
        &o.kind,
        &o.namespace,
        &o.name,
        &o.uid,
        &o.api_version,
        &e.type_,
    ])
}

/// `IsDNS1123Subdomain`: at most 253 characters of dot-separated labels of lowercase
/// alphanumerics and `-`, each starting and ending alphanumeric.
fn is_dns1123_subdomain(name: &str) -> bool {
    name.len() <= 253
        && name.split('.').all(|label| {
            let b = label.as_bytes();
            let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
            match (b.first(), b.last()) {
                (Some(f), Some(l)) => {
                    alnum(f) && alnum(l) && b.iter().all(|c| alnum(c) || *c == b'-')
                }
                _ => false,
            }
        })
}

/// EC-09: a UUID-shaped name from the nanoseconds and the object's name (FNV-1a).
fn uuid_shaped(nanos: i64, object: &str) -> String {
    let hash = object.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let v = (u128::from(nanos as u64) << 64) | u128::from(hash);
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        (v >> 96) as u32,
        (v >> 80) as u16,
        (v >> 64) as u16,
        (v >> 48) as u16,
        v & 0xffff_ffff_ffff
    )
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DropReason::SpamFilter => "spam filter: no token left for this source and object",
        })
    }
}
