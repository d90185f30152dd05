//! Expectations (R-40..R-46): what the controller waits to see from the watch before it
//! acts again for an owner. A pure value per owner key; every operation returns the next
//! value, and `now` is always an argument.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::time::{Duration, Time};

/// C-3: expectations older than this are treated as satisfied (strictly greater).
pub const EXPECTATIONS_TTL: Duration = Duration::from_seconds(300);

/// The stored record of one owner key: counts, when they were set, and the pod keys
/// (`namespace/name`) whose deletion is awaited (UID-tracking expectations).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ExpectationsRecord {
    /// Creations still awaited.
    pub add: i64,
    /// Deletions still awaited.
    pub del: i64,
    /// When the counts were set (C-3's TTL counts from here).
    pub timestamp: Time,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    /// The pods (`namespace/name`) whose deletion is awaited.
    pub deletion_keys: BTreeSet<String>,
}

/// The expectations of one owner key: `None` when nothing is recorded.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(transparent)]
pub struct Expectations(pub Option<ExpectationsRecord>);

impl Expectations {
    /// No expectations recorded.
    pub fn none() -> Self {
        Expectations(None)
    }

    /// The record, if any.
    pub fn record(&self) -> Option<&ExpectationsRecord> {
        self.0.as_ref()
    }

    /// no record, or nothing outstanding (`add <= 0 && del <= 0`), or expired
    /// (`now - timestamp > 5 min`).
    pub fn satisfied(&self, now: Time) -> bool {
        self.0.as_ref().is_none_or(|r| r.satisfied(now))
    }

    /// `SetExpectations`: counts replaced, timestamp reset, deletion keys kept.
    pub fn set(self, add: i64, del: i64, now: Time) -> Self {
        let deletion_keys = self.0.map(|r| r.deletion_keys).unwrap_or_default();
        Expectations(Some(ExpectationsRecord {
            add,
            del,
            timestamp: now,
            deletion_keys,
        }))
    }

    /// `ExpectCreations(n)` = set(n, 0); the deletion keys are not cleared.
    pub fn expect_creations(self, n: i64, now: Time) -> Self {
        self.set(n, 0, now)
    }

    /// `ExpectDeletions(keys)`: keys := the distinct keys, counts := (0, |keys|).
    pub fn expect_deletions<I, S>(self, keys: I, now: Time) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut deletion_keys = BTreeSet::new();
        deletion_keys.extend(keys.into_iter().map(Into::into));
        let del = deletion_keys.len() as i64;
        Expectations(Some(ExpectationsRecord {
            add: 0,
            del,
            timestamp: now,
            deletion_keys,
        }))
    }

    /// `CreationObserved`: add − 1 if a record exists; the timestamp is kept.
    pub fn creation_observed(self) -> Self {
        self.lower(1, 0)
    }

    /// `DeletionObserved(key)`: only for an awaited key, del − 1 and forget the key.
    pub fn deletion_observed(self, pod_key: &str) -> Self {
        let mut this = self;
        if let Some(r) = this.0.as_mut() {
            if r.deletion_keys.remove(pod_key) {
                r.del -= 1;
            }
        }
        this
    }

    /// `LowerExpectations(add, del)` (no-op without a record).
    pub fn lower(self, add: i64, del: i64) -> Self {
        Expectations(self.0.map(|mut r| {
            r.add = r.add.saturating_sub(add);
            r.del = r.del.saturating_sub(del);
            r
        }))
    }

    /// `RaiseExpectations(add, del)` (no-op without a record).
    pub fn raise(self, add: i64, del: i64) -> Self {
        Expectations(self.0.map(|mut r| {
            r.add = r.add.saturating_add(add);
            r.del = r.del.saturating_add(del);
            r
        }))
    }

    /// `DeleteExpectations`: the record and its keys are gone.
    pub fn deleted(self) -> Self {
        Expectations(None)
    }
}

impl ExpectationsRecord {
    /// R-40 for a recorded owner: nothing outstanding, or expired (C-3).
    pub fn satisfied(&self, now: Time) -> bool {
        (self.add <= 0 && self.del <= 0) || self.expired(now)
    }

    /// C-3: strictly older than the TTL.
    pub fn expired(&self, now: Time) -> bool {
        now.since(self.timestamp) > EXPECTATIONS_TTL
    }
}

/// What a host must do to an owner's expectations; applied with [`ExpectationsChange::apply`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum ExpectationsChange {
    /// before creating, `ExpectCreations(count)`.
    ExpectCreations {
        /// Pods about to be created.
        count: i64,
    },
    /// before deleting, `ExpectDeletions(keys)`.
    ExpectDeletions {
        /// The pods (`namespace/name`) about to be deleted.
        keys: Vec<String>,
    },
    /// `CreationObserved` once per creation that was skipped or failed.
    LowerCreations {
        /// Creations no longer awaited.
        count: i64,
    },
    /// ..R-95: `DeletionObserved(key)` (failed deletes, observed deletions).
    DeletionObserved {
        /// The pod (`namespace/name`) whose deletion was observed or failed.
        key: String,
    },
    /// `CreationObserved` for an observed pod.
    CreationObserved,
    /// R-91b: `DeleteExpectations`.
    Delete,
    /// `SetExpectations(add, del)`.
    Set {
        /// Creations awaited.
        add: i64,
        /// Deletions awaited.
        del: i64,
    },
    /// `LowerExpectations(add, del)`.
    Lower {
        /// Creations no longer awaited.
        add: i64,
        /// Deletions no longer awaited.
        del: i64,
    },
    /// `RaiseExpectations(add, del)`.
    Raise {
        /// More creations awaited.
        add: i64,
        /// More deletions awaited.
        del: i64,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
enum Op {
    ExpectCreations,
    ExpectDeletions,
    LowerCreations,
    DeletionObserved,
    CreationObserved,
    Delete,
    Set,
    Lower,
    Raise,
}

/// The wire form of [`ExpectationsChange`], read as one flat object (an internally
/// tagged enum would buffer every value first).
#[derive(Deserialize)]
struct ChangeWire {
    op: Op,
    count: Option<i64>,
    keys: Option<Vec<String>>,
    key: Option<String>,
    add: Option<i64>,
    del: Option<i64>,
}

impl<'de> Deserialize<'de> for ExpectationsChange {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::objects::converted::<_, ChangeWire, _, String>(d, ExpectationsChange::try_from)
    }
}

impl TryFrom<ChangeWire> for ExpectationsChange {
    type Error = String;

    fn try_from(w: ChangeWire) -> Result<Self, String> {
        fn need<T>(v: Option<T>, field: &str) -> std::result::Result<T, String> {
            crate::objects::required(v, "this op", field)
        }
        Ok(match w.op {
            Op::ExpectCreations => ExpectationsChange::ExpectCreations {
                count: need(w.count, "count")?,
            },
            Op::ExpectDeletions => ExpectationsChange::ExpectDeletions {
                keys: need(w.keys, "keys")?,
            },
            Op::LowerCreations => ExpectationsChange::LowerCreations {
                count: need(w.count, "count")?,
            },
            Op::DeletionObserved => ExpectationsChange::DeletionObserved {
                key: need(w.key, "key")?,
            },
            Op::CreationObserved => ExpectationsChange::CreationObserved,
            Op::Delete => ExpectationsChange::Delete,
            Op::Set => ExpectationsChange::Set {
                add: need(w.add, "add")?,
                del: need(w.del, "del")?,
            },
            Op::Lower => ExpectationsChange::Lower {
                add: need(w.add, "add")?,
                del: need(w.del, "del")?,
            },
            Op::Raise => ExpectationsChange::Raise {
                add: need(w.add, "add")?,
                del: need(w.del, "del")?,
            },
        })
    }
}

impl ExpectationsChange {
    /// The expectations after this change, at `now`.
    pub fn apply(&self, e: Expectations, now: Time) -> Expectations {
        match self {
            ExpectationsChange::ExpectCreations { count } => e.expect_creations(*count, now),
            ExpectationsChange::ExpectDeletions { keys } => {
                e.expect_deletions(keys.iter().cloned(), now)
            }
            ExpectationsChange::LowerCreations { count } => e.lower(*count, 0),
            ExpectationsChange::DeletionObserved { key } => e.deletion_observed(key),
            ExpectationsChange::CreationObserved => e.creation_observed(),
            ExpectationsChange::Delete => e.deleted(),
            ExpectationsChange::Set { add, del } => e.set(*add, *del, now),
            ExpectationsChange::Lower { add, del } => e.lower(*add, *del),
            ExpectationsChange::Raise { add, del } => e.raise(*add, *del),
        }
    }
}

/// Every owner key's expectations, kept by the engine, as upstream keeps its
/// `ControllerExpectations` in a store by controller key. A host that streams watch events
/// applies each change by key ([`ExpectationsTable::apply`]) instead of handing the whole
/// record over and back on every observation: for an owner awaiting hundreds of
/// deletions that record is hundreds of keys, once per observed deletion.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExpectationsTable {
    by_key: BTreeMap<String, ExpectationsRecord>,
}

impl ExpectationsTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The expectations of owner `key` (none when nothing is recorded).
    pub fn get(&self, key: &str) -> Expectations {
        Expectations(self.by_key.get(key).cloned())
    }

    /// `changes`, in order, applied to owner `key`'s expectations at `now`.
    pub fn apply(&mut self, key: &str, changes: &[ExpectationsChange], now: Time) {
        if changes.is_empty() {
            return;
        }
        // A recorded key is changed in place: no key text is allocated per observed event.
        let (mut e, slot) = match self.by_key.get_mut(key) {
            Some(slot) => (Expectations(Some(take_record(slot))), Some(slot)),
            None => (Expectations::none(), None),
        };
        for c in changes {
            e = c.apply(e, now);
        }
        match (e.0, slot) {
            (Some(record), Some(slot)) => *slot = record,
            (Some(record), None) => {
                self.by_key.insert(key.to_owned(), record);
            }
            (None, Some(_)) => {
                self.by_key.remove(key);
            }
            (None, None) => {}
        }
    }

    /// R-40 for owner `key`.
    pub fn satisfied(&self, key: &str, now: Time) -> bool {
        self.by_key.get(key).is_none_or(|r| r.satisfied(now))
    }

    /// owner `key`'s record forgotten; whether there was one.
    pub fn remove(&mut self, key: &str) -> bool {
        self.by_key.remove(key).is_some()
    }

    /// How many owner keys have a record.
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    /// Whether no owner key has a record.
    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}

/// The record out of its slot, an empty one (allocating nothing) left in its place.
fn take_record(slot: &mut ExpectationsRecord) -> ExpectationsRecord {
    std::mem::replace(
        slot,
        ExpectationsRecord {
            add: 0,
            del: 0,
            timestamp: slot.timestamp,
            deletion_keys: BTreeSet::new(),
        },
    )
}
