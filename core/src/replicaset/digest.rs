//! A pod's digest: every per-pod value the ranking compares (R-01, R-02, R-04, R-05,
//! ..R-74), computed once when the pod enters the engine (parsed into a
//! [`Pods`] list, or upserted into the [`crate::Store`]) instead of on every sync.
//!
//! A sync over 10,000 pods otherwise spends most of its time fetching each pod's
//! conditions, phase and container statuses from scattered heap objects. The digests sit
//! in one contiguous array, so ranking touches a few cache lines per pod. A digest can
//! only be made from its pod ([`PodDigest::of`]), and [`Pods`] recomputes it whenever a
//! pod is replaced, so the two never disagree.

use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher, Hash};
use std::ops::Deref;
use std::sync::Arc;

use std::fmt;

use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::fxhash::{FxBuild, FxHashSet};
use crate::model::Pod;
use crate::objects::Object;
use crate::pods;
use crate::time::Time;

/// What the rules read from a pod, computed once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodDigest {
    /// The UID's first 16 bytes, big-endian and zero-padded: a smaller prefix is a
    /// smaller UID; equal prefixes fall back to comparing the strings.
    pub(crate) uid_prefix: u128,
    /// The node name's 128-bit fingerprint (two independent 64-bit hashes), to group
    /// pods by node without reading the names. Two names sharing a fingerprint
    /// are as unlikely as in rustc's incremental-compilation fingerprints, which rest on
    /// the same assumption.
    pub(crate) node: u128,
    /// The fingerprint of `namespace/name`, to find duplicate pods without reading the
    /// names (a shared fingerprint is confirmed on the names themselves).
    pub(crate) key: u128,
    /// valid with [`PodDigest::HAS_READY_TIME`].
    ready_time: i64,
    /// Valid with [`PodDigest::HAS_CREATED`].
    created: i64,
    /// R-60, parsed (the PodDeletionCost gate is applied by the ranking).
    pub(crate) deletion_cost: i32,
    ///
    pub(crate) restarts: i32,
    pub(crate) sidecar_restarts: i32,
    /// C-9: Pending (or unknown) 0, Unknown 1, Running 2.
    pub(crate) phase: u8,
    flags: u8,
    /// The strings the owner filter and the selectors compare, in one buffer.
    pub(crate) strings: PodStrings,
}

/// Copies of the strings a sync compares for every pod: the
/// namespace, the controller reference's UID, name and kind, and the labels, in one
/// allocation, so that matching a pod reads one buffer instead of a dozen scattered
/// strings. Each string is stored as a 4-byte little-endian length and its bytes. Shared,
/// so that copying a digest (a store's copy on write) copies no bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct PodStrings(Arc<[u8]>);

/// A pod's controller reference as [`PodStrings`] holds it.
pub(crate) struct ControllerRef<'a> {
    pub uid: &'a [u8],
    pub name: &'a [u8],
    pub kind: &'a [u8],
}

impl PodStrings {
    fn of(pod: &Pod) -> PodStrings {
        let meta = &pod.metadata;
        let controller = meta.controller_ref();
        let labels = meta.labels.iter().flatten();
        let mut size = 1 + 4 + meta.namespace.len();
        if let Some(r) = controller {
            size += 12 + r.uid.len() + r.name.len() + r.kind.len();
        }
        size += labels
            .clone()
            .map(|(k, v)| 8 + k.len() + v.len())
            .sum::<usize>();
        let mut buf = Vec::with_capacity(size);
        buf.push(u8::from(controller.is_some()));
        let mut put = |s: &str| {
            buf.extend_from_slice(&(s.len() as u32).to_le_bytes());
            buf.extend_from_slice(s.as_bytes());
        };
        put(&meta.namespace);
        if let Some(r) = controller {
            put(&r.uid);
            put(&r.name);
            put(&r.kind);
        }
        for (k, v) in labels {
            put(k);
            put(v);
        }
        PodStrings(Arc::from(buf))
    }

    /// Whether both are one buffer (then they are equal, without reading them).
    pub(crate) fn same_buffer(&self, other: &PodStrings) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    fn reader(&self) -> (bool, Reader<'_>) {
        match self.0.split_first() {
            Some((&flag, rest)) => (flag == 1, Reader(rest)),
            None => (false, Reader(&[])),
        }
    }

    pub(crate) fn namespace(&self) -> &[u8] {
        self.reader().1.next().unwrap_or_default()
    }

    /// The controller reference (`None`: the pod has none).
    pub(crate) fn controller(&self) -> Option<ControllerRef<'_>> {
        let (has, mut r) = self.reader();
        r.next()?;
        if !has {
            return None;
        }
        Some(ControllerRef {
            uid: r.next()?,
            name: r.next()?,
            kind: r.next()?,
        })
    }

    /// The labels as (key, value) pairs, sorted by key.
    pub(crate) fn labels(&self) -> Labels<'_> {
        let (has, mut r) = self.reader();
        let skip = if has { 4 } else { 1 };
        for _ in 0..skip {
            r.next();
        }
        Labels(r)
    }
}

/// Whether two byte strings are equal, compared eight bytes at a time: these comparisons
/// (namespace, controller reference, labels) run for every pod of a sync, and wasm's
/// `memcmp` goes byte by byte.
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let word = |c: &[u8]| c.try_into().map_or(0, u64::from_ne_bytes);
    let (x, y) = (a.chunks_exact(8), b.chunks_exact(8));
    let tails = x.remainder().iter().zip(y.remainder());
    x.zip(y).all(|(p, q)| word(p) == word(q)) && tails.into_iter().all(|(p, q)| p == q)
}

/// One buffer for equal [`PodStrings`]: the pods of one template in one namespace have
/// the same namespace, controller reference and labels, so a collection that shares
/// their buffers keeps one copy, and a sync that has judged one buffer (owner, selector)
/// knows the verdict for every pod holding it without reading the bytes again. Reading
/// each pod's own buffer, scattered over the heap as the pods arrived one by one, was
/// half of a 10,000-pod plan from the store.
#[derive(Clone, Debug, Default)]
pub(crate) struct SharedStrings(FxHashSet<PodStrings>);

impl SharedStrings {
    /// Points `digest` at the shared buffer equal to its own (which becomes the shared
    /// one if there is none yet).
    pub(crate) fn share(&mut self, digest: &mut PodDigest) {
        match self.0.get(&digest.strings) {
            Some(shared) => digest.strings = shared.clone(),
            None => {
                self.0.insert(digest.strings.clone());
            }
        }
    }

    /// Drops the buffers no digest holds any more, once they may be most of the set
    /// (`live`: how many digests the collection holds).
    pub(crate) fn sweep(&mut self, live: usize) {
        if self.0.len() > 2 * live + 64 {
            self.0.retain(|s| Arc::strong_count(&s.0) > 1);
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

#[derive(Clone)]
struct Reader<'a>(&'a [u8]);

impl<'a> Iterator for Reader<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let (len, rest) = self.0.split_first_chunk::<4>()?;
        let len = u32::from_le_bytes(*len) as usize;
        let (s, rest) = rest.split_at_checked(len)?;
        self.0 = rest;
        Some(s)
    }
}

/// A pod's labels from its [`PodStrings`].
#[derive(Clone)]
pub(crate) struct Labels<'a>(Reader<'a>);

impl<'a> Labels<'a> {
    /// The encoded labels: equal bytes are equal label sets (pods of one template share
    /// them, so a selector's verdict on one holds for the others).
    pub(crate) fn encoded(&self) -> &'a [u8] {
        self.0 .0
    }
}

impl<'a> Iterator for Labels<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        Some((self.0.next()?, self.0.next()?))
    }
}

impl PodDigest {
    const READY: u8 = 1;
    const HAS_READY_TIME: u8 = 2;
    const HAS_CREATED: u8 = 4;
    const UNASSIGNED: u8 = 8;
    const ACTIVE: u8 = 16;
    const TERMINATING: u8 = 32;
    const NAMED: u8 = 64;

    /// The digest of `pod`.
    pub fn of(pod: &Pod) -> PodDigest {
        let mut flags = 0;
        let mut ready_time = 0;
        if let Some(t) = pods::ready_state(pod) {
            flags |= Self::READY;
            if let Some(t) = t {
                flags |= Self::HAS_READY_TIME;
                ready_time = t.unix_nanos();
            }
        }
        let mut created = 0;
        if let Some(t) = pod.metadata.creation_timestamp {
            flags |= Self::HAS_CREATED;
            created = t.unix_nanos();
        }
        if pod.node_name().is_empty() {
            flags |= Self::UNASSIGNED;
        }
        if pods::is_active(pod) {
            flags |= Self::ACTIVE;
        }
        if pods::is_terminating(pod) {
            flags |= Self::TERMINATING;
        }
        if !pod.metadata.name.is_empty() {
            flags |= Self::NAMED;
        }
        PodDigest {
            uid_prefix: uid_prefix(pod.uid()),
            node: fingerprint(pod.node_name()),
            key: fingerprint((pod.namespace(), pod.name())),
            ready_time,
            created,
            deletion_cost: pods::deletion_cost(pod),
            restarts: pods::max_container_restarts(pod),
            sidecar_restarts: pods::max_sidecar_restarts(pod),
            phase: pods::phase_ordinal(pod),
            flags,
            strings: PodStrings::of(pod),
        }
    }

    ///
    pub fn is_ready(&self) -> bool {
        self.flags & Self::READY != 0
    }

    /// the ready time of a ready pod; `None` when not ready or zero.
    pub fn ready_time(&self) -> Option<Time> {
        (self.flags & Self::HAS_READY_TIME != 0).then_some(Time::from_unix_nanos(self.ready_time))
    }

    /// The pod's `metadata.creationTimestamp`; `None` when unset.
    pub fn creation_time(&self) -> Option<Time> {
        (self.flags & Self::HAS_CREATED != 0).then_some(Time::from_unix_nanos(self.created))
    }

    /// Not scheduled to a node.
    pub fn is_unassigned(&self) -> bool {
        self.flags & Self::UNASSIGNED != 0
    }

    ///
    pub fn is_active(&self) -> bool {
        self.flags & Self::ACTIVE != 0
    }

    /// The pod has a name (E-08).
    pub fn is_named(&self) -> bool {
        self.flags & Self::NAMED != 0
    }

    ///
    pub fn is_terminating(&self) -> bool {
        self.flags & Self::TERMINATING != 0
    }
}

/// A 128-bit fingerprint of `value`: the Fx hash and SipHash-1-3 (std's fixed-key
/// `DefaultHasher`, the same within a process, which is as long as a digest lives).
fn fingerprint(value: impl Hash + Copy) -> u128 {
    let fx = FxBuild::default().hash_one(value);
    let sip = BuildHasherDefault::<DefaultHasher>::default().hash_one(value);
    (u128::from(fx) << 64) | u128::from(sip)
}

/// The first 16 bytes of `uid`, big-endian, zero-padded.
fn uid_prefix(uid: &str) -> u128 {
    let mut b = [0u8; 16];
    for (d, s) in b.iter_mut().zip(uid.as_bytes()) {
        *d = *s;
    }
    u128::from_be_bytes(b)
}

/// A pod with its digest, by reference.
#[derive(Clone, Copy, Debug)]
pub struct Digested<'a> {
    /// The pod.
    pub pod: &'a Pod,
    /// Its digest.
    pub digest: &'a PodDigest,
}

impl Deref for Digested<'_> {
    type Target = Pod;

    fn deref(&self) -> &Pod {
        self.pod
    }
}

/// A list of pods with their digests, kept in step: reads as a `[Pod]` slice; every
/// change goes through a method that recomputes the changed pod's digest.
#[derive(Clone, Debug, Default)]
pub struct Pods {
    pods: Vec<Pod>,
    digests: Vec<PodDigest>,
}

impl Pods {
    /// An empty list.
    pub fn new() -> Pods {
        Pods::default()
    }

    /// Appends `pod` with its digest.
    pub fn push(&mut self, pod: Pod) {
        self.digests.push(PodDigest::of(&pod));
        self.pods.push(pod);
    }

    /// Inserts `pod` at `index` (at the end when `index` is past it).
    pub fn insert(&mut self, index: usize, pod: Pod) {
        let index = index.min(self.pods.len());
        self.digests.insert(index, PodDigest::of(&pod));
        self.pods.insert(index, pod);
    }

    /// Replaces the pod at `index`, returning the old one (`None`, and no change, when
    /// out of range).
    pub fn replace(&mut self, index: usize, pod: Pod) -> Option<Pod> {
        let digest = PodDigest::of(&pod);
        let slot = self.pods.get_mut(index)?;
        if let Some(d) = self.digests.get_mut(index) {
            *d = digest;
        }
        Some(std::mem::replace(slot, pod))
    }

    /// Changes the pod at `index` in place and recomputes its digest; `false` when out
    /// of range.
    pub fn update(&mut self, index: usize, change: impl FnOnce(&mut Pod)) -> bool {
        let (Some(pod), Some(digest)) = (self.pods.get_mut(index), self.digests.get_mut(index))
        else {
            return false;
        };
        change(pod);
        *digest = PodDigest::of(pod);
        true
    }

    /// Changes every pod in place and recomputes the digests.
    pub fn update_each(&mut self, mut change: impl FnMut(&mut Pod)) {
        for (pod, digest) in self.pods.iter_mut().zip(self.digests.iter_mut()) {
            change(pod);
            *digest = PodDigest::of(pod);
        }
    }

    /// Removes and returns the pod at `index`.
    pub fn remove(&mut self, index: usize) -> Option<Pod> {
        if index >= self.pods.len() {
            return None;
        }
        self.digests.remove(index);
        Some(self.pods.remove(index))
    }

    /// The digests, in the pods' order.
    pub fn digests(&self) -> &[PodDigest] {
        &self.digests
    }

    /// Each pod with its digest, in order.
    pub fn digested(&self) -> impl Iterator<Item = Digested<'_>> {
        self.pods
            .iter()
            .zip(&self.digests)
            .map(|(pod, digest)| Digested { pod, digest })
    }

    /// The pods, without their digests.
    pub fn into_vec(self) -> Vec<Pod> {
        self.pods
    }
}

impl Deref for Pods {
    type Target = [Pod];

    fn deref(&self) -> &[Pod] {
        &self.pods
    }
}

impl PartialEq for Pods {
    fn eq(&self, other: &Pods) -> bool {
        self.pods == other.pods
    }
}

impl From<Vec<Pod>> for Pods {
    fn from(pods: Vec<Pod>) -> Pods {
        let digests = pods.iter().map(PodDigest::of).collect();
        Pods { pods, digests }
    }
}

impl FromIterator<Pod> for Pods {
    fn from_iter<I: IntoIterator<Item = Pod>>(iter: I) -> Pods {
        Pods::from(iter.into_iter().collect::<Vec<Pod>>())
    }
}

impl Extend<Pod> for Pods {
    fn extend<I: IntoIterator<Item = Pod>>(&mut self, iter: I) {
        for pod in iter {
            self.push(pod);
        }
    }
}

impl IntoIterator for Pods {
    type Item = Pod;
    type IntoIter = std::vec::IntoIter<Pod>;

    fn into_iter(self) -> Self::IntoIter {
        self.pods.into_iter()
    }
}

impl<'a> IntoIterator for &'a Pods {
    type Item = &'a Pod;
    type IntoIter = std::slice::Iter<'a, Pod>;

    fn into_iter(self) -> Self::IntoIter {
        self.pods.iter()
    }
}

impl Serialize for Pods {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.pods.serialize(serializer)
    }
}

/// An array of pod objects (`null` reads as empty), each digested as soon as it is read,
/// while its fields are still in cache.
impl<'de> Deserialize<'de> for Pods {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Pods, D::Error> {
        struct PodsVisitor;
        impl<'de> Visitor<'de> for PodsVisitor {
            type Value = Pods;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of objects")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Pods, E> {
                Ok(Pods::new())
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<Pods, E> {
                Ok(Pods::new())
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Pods, D::Error> {
                d.deserialize_seq(self)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Pods, A::Error> {
                let mut pods = Pods::new();
                let n = seq.size_hint().unwrap_or(0).min(4096);
                pods.pods.reserve(n);
                pods.digests.reserve(n);
                while let Some(Object(pod)) = seq.next_element::<Object<Pod>>()? {
                    pods.push(pod);
                }
                Ok(pods)
            }
        }
        deserializer.deserialize_option(PodsVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::same_bytes;

    /// `same_bytes` is `==` on byte slices: every length up to three words, a difference
    /// at every position (in a word or in the tail), and different lengths.
    #[test]
    fn same_bytes_is_slice_equality() {
        for len in 0..=24usize {
            let a: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            assert!(same_bytes(&a, &a.clone()), "equal, {len} bytes");
            for at in 0..len {
                let mut b = a.clone();
                if let Some(x) = b.get_mut(at) {
                    *x ^= 0x20;
                }
                assert!(!same_bytes(&a, &b), "differ at {at} of {len}");
            }
            let mut longer = a.clone();
            longer.push(0);
            assert!(!same_bytes(&a, &longer), "lengths {len} and {}", len + 1);
        }
    }
}
