//! The ordering machinery behind the ranking: pods in blocks that the
//! first rules cannot separate, each block ordered as a linear extension of upstream's
//! rank groups (by scores where UID order does not already agree), radix sorts of packed
//! keys. No rule is decided here: every comparison is [`super::rule`]'s.

use std::cmp::Ordering;

use crate::config::FeatureGates;
use crate::replicaset::digest::Digested;
use crate::time::Time;

use super::rule::{colocation, time_bits, Key};

/// A block member's keys, copied together so the block's sorts touch one small array.
#[derive(Clone, Copy, Debug)]
struct Member {
    index: u32,
    /// Dense UID rank within the block (see [`uid_order`]).
    uid: u32,
    ready: u64,
    created: u64,
    later: u128,
    w: i64,
}

/// Whether UID order is a linear extension of upstream's order in a ready block with
/// LogarithmicScaleDown (rule 6 in play) and distinct UIDs, so that no scores are needed:
/// pods of different exact ready times go by UID; pods of one ready time go by the later
/// key (rules 7, 8) and, between different creation times of one bucket, by UID. So UID
/// order agrees with every strict comparison, and the block has no intransitive group,
/// when within each ready time the later key never decreases along UID order.
/// `members` are in UID order; `by_time` holds (ready time, position) sorted.
fn uid_order_agrees(members: &[Member], by_time: &[(u64, u32)]) -> bool {
    let later = |pos: u32| members.get(pos as usize).map_or(0, |m| m.later);
    by_time.windows(2).all(|pair| match pair {
        [a, b] => a.0 != b.0 || later(a.1) <= later(b.1),
        _ => true,
    })
}

/// For members sorted (grouped ascending) by `key`: `sign ×` (how many have a greater key
/// − how many a smaller one), added to each member's `w`. One linear pass.
fn add_sorted_scores<K: PartialEq>(members: &mut [Member], key: impl Fn(&Member) -> K, sign: i64) {
    let n = members.len();
    if n < 2 {
        return;
    }
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n {
            match (members.get(start), members.get(end)) {
                (Some(a), Some(b)) if key(a) == key(b) => end += 1,
                _ => break,
            }
        }
        let score = sign * ((n - end) as i64 - start as i64);
        for m in members.get_mut(start..end).unwrap_or_default() {
            m.w += score;
        }
        start = end;
    }
}

/// Calls `f` on each run of equal `key` (members sorted by it).
fn for_runs_mut(
    members: &mut [Member],
    key: impl Fn(&Member) -> u128,
    mut f: impl FnMut(&mut [Member]),
) {
    let mut start = 0;
    while start < members.len() {
        let k = members.get(start).map(&key);
        let mut end = start + 1;
        while end < members.len() && members.get(end).map(&key) == k {
            end += 1;
        }
        if let Some(run) = members.get_mut(start..end) {
            f(run);
        }
        start = end;
    }
}

/// Buffers reused from one block to the next.
#[derive(Default)]
struct Scratch {
    members: Vec<Member>,
    /// (UID prefix, index) of the block's pods, in UID order.
    by_uid: Vec<(u128, u32)>,
    /// (exact ready time, position in UID order), sorted.
    by_time: Vec<(u64, u32)>,
    /// Buffers of [`score_ready_class`].
    class: ClassScratch,
}

/// Buffers of [`score_ready_class`] ((later key, position) and (creation time, position))
/// and of [`order_block`]'s sorts.
#[derive(Default)]
struct ClassScratch {
    by_later: Vec<(u128, u32)>,
    by_created: Vec<(u64, u32)>,
    /// (score, UID rank) packed, for ordering a scored block.
    packed: Vec<u64>,
}

/// Orders one block (pods that rules 1–5 and the ready slot cannot separate) as a linear
/// extension of upstream's rank groups. Within the block, upstream's `Less(a, b)` is:
/// different exact ready times (both ready, with LogarithmicScaleDown) ⇒ by UID;
/// otherwise by the later key (restarts, sidecar restarts, creation slot), and within one
/// creation bucket, different exact creation times ⇒ by UID.
///
/// With distinct UIDs, most blocks need no scores: without rule 6 in play, (later key,
/// UID) order agrees with every strict comparison; with it, UID order does when
/// [`uid_order_agrees`]. Such an order is a linear extension and the block has no
/// intransitive group, so it is used as is. Otherwise each pod is scored by its strict
/// wins minus strict losses against the block, and the block is sorted by that score;
/// every score part is a count over a sorted run.
fn order_block(
    keys: &[Key],
    pods: &[Digested],
    block: &mut [u32],
    scratch: &mut Scratch,
    log: bool,
) {
    if block.len() < 2 {
        return;
    }
    let Scratch {
        members,
        by_uid,
        by_time,
        class,
    } = scratch;
    uid_order(keys, pods, block, by_uid);
    members.clear();
    let uid_of = |i: u32| pods.get(i as usize).map_or("", |p| p.uid());
    let mut rank = 0u32;
    let mut prev: Option<(u128, u32)> = None;
    for &(prefix, i) in by_uid.iter() {
        if let Some((p, j)) = prev {
            if p != prefix || uid_of(i) != uid_of(j) {
                rank += 1;
            }
        }
        prev = Some((prefix, i));
        if let Some(k) = keys.get(i as usize) {
            members.push(Member {
                index: i,
                uid: rank,
                ready: time_bits(k.ready_time()),
                created: time_bits(k.created()),
                later: k.later_key(),
                w: 0,
            });
        }
    }
    let ready = block
        .first()
        .and_then(|&i| keys.get(i as usize))
        .is_some_and(Key::ready);
    let by_ready_time = ready && log;
    let distinct_uids = members
        .last()
        .is_some_and(|m| m.uid as usize + 1 == members.len());
    // With distinct UIDs, a member's UID rank is its position in `members`.
    match (distinct_uids, by_ready_time) {
        (true, false) => {
            // (later key, UID) order, sorting small (key, position) pairs.
            let by_later = &mut class.by_later;
            by_later.clear();
            by_later.extend(members.iter().map(|m| (m.later, m.uid)));
            by_later.sort_unstable();
            write_positions(block, members, by_later.iter().map(|&(_, pos)| pos));
        }
        (true, true) => {
            by_time.clear();
            by_time.extend(members.iter().map(|m| m.ready).zip(0u32..));
            by_time.sort_unstable();
            if uid_order_agrees(members, by_time) {
                write_positions(block, members, 0..members.len() as u32);
            } else {
                score_ready_block(members, by_time, class);
                // Score, then UID (= position): one packed integer per member.
                let packed = &mut class.packed;
                packed.clear();
                packed.extend(members.iter().map(|m| {
                    let w = m.w.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
                    // Highest score first: order by the biased score's complement.
                    let score = !((w as u32) ^ (1 << 31));
                    (u64::from(score) << 32) | u64::from(m.uid)
                }));
                packed.sort_unstable();
                write_positions(block, members, packed.iter().map(|&p| p as u32));
            }
        }
        (false, _) => {
            score_block(members, by_ready_time, log);
            by_score(members, pods, block);
        }
    }
}

/// Writes into `block` the pods of the members at `positions`, in that order.
fn write_positions(block: &mut [u32], members: &[Member], positions: impl Iterator<Item = u32>) {
    for (slot, pos) in block.iter_mut().zip(positions) {
        if let Some(m) = members.get(pos as usize) {
            *slot = m.index;
        }
    }
}

/// Each member's strict wins minus strict losses against the block (`w`). `members`
/// arrive sorted by UID rank; they leave in no particular order.
fn score_block(members: &mut [Member], by_ready_time: bool, log: bool) {
    if by_ready_time {
        // Rule 6 inside a bucket: pods of different exact ready times go by UID.
        // `members` is sorted by UID here.
        add_sorted_scores(members, |m| m.uid, 1);
        members.sort_unstable_by_key(|m| (m.ready, m.uid));
    }
    let classes = |m: &Member| {
        if by_ready_time {
            u128::from(m.ready)
        } else {
            0
        }
    };
    for_runs_mut(members, classes, |class| {
        if by_ready_time {
            // Within one exact ready time the UID part above does not apply.
            add_sorted_scores(class, |m| m.uid, -1);
        }
        // Rules 7 and 8: the later key, then (same creation bucket) UID between
        // different exact creation times.
        class.sort_unstable_by_key(|m| (m.later, m.uid));
        add_sorted_scores(class, |m| m.later, 1);
        if log {
            for_runs_mut(
                class,
                |m| m.later,
                |group| {
                    add_sorted_scores(group, |m| m.uid, 1);
                    group.sort_unstable_by_key(|m| (m.created, m.uid));
                    for_runs_mut(
                        group,
                        |m| u128::from(m.created),
                        |cclass| add_sorted_scores(cclass, |m| m.uid, -1),
                    );
                },
            );
        }
    });
}

/// The scores of [`order_block`] for a ready block with LogarithmicScaleDown (rule 6 in
/// play) and distinct UIDs, computed the same way as [`score_block`] but touching only
/// the pods that share an exact ready time with another: the UID part is
/// `n − 1 − 2·rank` for every pod; within each ready time of several pods, that time's
/// own UID part is taken back and the later key (rules 7, 8) and the creation-time UID
/// rule are added. `members` arrive sorted by UID; `by_time` holds (ready time,
/// position) sorted.
fn score_ready_block(members: &mut [Member], by_time: &[(u64, u32)], buf: &mut ClassScratch) {
    let n = members.len() as i64;
    for (rank, m) in (0i64..).zip(members.iter_mut()) {
        m.w = n - 1 - 2 * rank;
    }
    for class in runs(by_time).filter(|c| c.len() > 1) {
        score_ready_class(members, class, buf);
    }
}

/// Adds `sign ×` the UID rank part over `positions` (in UID order, ascending) to their
/// members' scores.
fn add_uid_part<K>(members: &mut [Member], positions: &[(K, u32)], sign: i64) {
    let len = positions.len() as i64;
    for (rank, (_, pos)) in (0i64..).zip(positions) {
        if let Some(m) = members.get_mut(*pos as usize) {
            m.w += sign * (len - 1 - 2 * rank);
        }
    }
}

/// One exact ready time's pods (positions in UID order, ascending) in a ready block.
fn score_ready_class(members: &mut [Member], class: &[(u64, u32)], buf: &mut ClassScratch) {
    let ClassScratch {
        by_later,
        by_created,
        ..
    } = buf;
    // Within one ready time the UID rule does not apply.
    add_uid_part(members, class, -1);
    // Rules 7 and 8: the later key; within one later key (one creation bucket), UID
    // between different exact creation times.
    by_later.clear();
    by_later.extend(
        class
            .iter()
            .map(|&(_, pos)| (members.get(pos as usize).map_or(0, |m| m.later), pos)),
    );
    by_later.sort_unstable();
    let c = by_later.len() as i64;
    let mut start = 0i64;
    for group in runs(by_later) {
        let end = start + group.len() as i64;
        for &(_, pos) in group {
            if let Some(m) = members.get_mut(pos as usize) {
                m.w += (c - end) - start;
            }
        }
        start = end;
        if group.len() > 1 {
            add_uid_part(members, group, 1);
            by_created.clear();
            by_created.extend(
                group
                    .iter()
                    .map(|&(_, pos)| (members.get(pos as usize).map_or(0, |m| m.created), pos)),
            );
            by_created.sort_unstable();
            for same in runs(by_created).filter(|r| r.len() > 1) {
                add_uid_part(members, same, -1);
            }
        }
    }
}

/// The runs of equal first elements of a sorted slice.
fn runs<K: PartialEq, V>(sorted: &[(K, V)]) -> impl Iterator<Item = &[(K, V)]> {
    sorted.chunk_by(|a, b| a.0 == b.0)
}

/// Writes the members into `block` by score (highest first), then UID rank, then
/// [`tie_break`]: score and UID rank are packed into one integer per member, sorted as
/// such, and only runs of equal packed keys (equal UIDs) are compared by name.
fn by_score(members: &[Member], pods: &[Digested], block: &mut [u32]) {
    let mut packed: Vec<(u128, u32)> = members
        .iter()
        .map(|m| {
            // Highest score first: order by the score's complement.
            let score = u128::from(!(m.w as u64 ^ (1 << 63)));
            ((score << 32) | u128::from(m.uid), m.index)
        })
        .collect();
    packed.sort_unstable_by_key(|e| e.0);
    let mut start = 0;
    while start < packed.len() {
        let key = packed.get(start).map(|e| e.0);
        let mut end = start + 1;
        while end < packed.len() && packed.get(end).map(|e| e.0) == key {
            end += 1;
        }
        if end - start > 1 {
            if let Some(run) = packed.get_mut(start..end) {
                run.sort_unstable_by(|a, b| tie_break(pods, a.1, b.1));
            }
        }
        start = end;
    }
    for (slot, (_, index)) in block.iter_mut().zip(packed) {
        *slot = index;
    }
}

/// The last tie-break: namespace, name, then input position.
fn tie_break(pods: &[Digested], a: u32, b: u32) -> Ordering {
    match (pods.get(a as usize), pods.get(b as usize)) {
        (Some(x), Some(y)) => (x.namespace(), x.name())
            .cmp(&(y.namespace(), y.name()))
            .then(a.cmp(&b)),
        _ => a.cmp(&b),
    }
}

/// The block's pods as (UID prefix, index), in byte-wise UID order (R-72.6/8 compare
/// UIDs as Go strings): sorted by the keys' 16-byte prefixes, full strings compared only
/// where prefixes tie.
fn uid_order(keys: &[Key], pods: &[Digested], block: &[u32], by_uid: &mut Vec<(u128, u32)>) {
    let uid_of = |i: u32| pods.get(i as usize).map_or("", |p| p.uid());
    by_uid.clear();
    by_uid.extend(
        block
            .iter()
            .map(|&i| (keys.get(i as usize).map_or(0, |k| k.uid), i)),
    );
    by_uid.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| uid_of(a.1).cmp(uid_of(b.1))));
}

/// The block keys packed into a `u64` (offsets from each part's minimum, in the same
/// order as [`Key::block`]); `None` when they do not fit, e.g. exact times without
/// LogarithmicScaleDown.
fn packed_block_keys(keys: &[Key]) -> Option<(Vec<u64>, u32)> {
    let bits = |range: u64| u64::BITS - range.leading_zeros();
    // One pass for the ranges of the co-location count and the ready slot.
    let (max_col, min_slot, max_slot) =
        keys.iter()
            .fold((0u32, i64::MAX, i64::MIN), |(col, slo, shi), k| {
                let slot = k.ready_slot().1;
                (col.max(k.colocated), slo.min(slot), shi.max(slot))
            });
    // Deletion costs span the whole int32 range (`2147483647` is a common annotation)
    // but take few distinct values: packed as their rank among those values.
    let mut costs: Vec<i32> = keys.iter().map(|k| k.cost).filter(|&c| c != 0).collect();
    costs.push(0);
    costs.sort_unstable();
    costs.dedup();
    let zero_rank = costs.partition_point(|&c| c < 0) as u64;
    let cost_rank = |cost: i32| match cost {
        0 => zero_rank,
        _ => costs.partition_point(|&c| c < cost) as u64,
    };
    let cost_bits = bits(costs.len().saturating_sub(1) as u64);
    let col_bits = bits(u64::from(max_col));
    let slot_range = i128::from(max_slot) - i128::from(min_slot);
    let slot_bits = bits(u64::try_from(slot_range.max(0)).ok()?) + 1;
    let key_bits = 4 + cost_bits + col_bits + slot_bits;
    if key_bits > 64 {
        return None;
    }
    let packed = keys
        .iter()
        .map(|k| {
            let head = (u64::from(!k.unassigned()) << 3)
                | (u64::from(k.phase & 3) << 1)
                | u64::from(k.ready());
            let cost = cost_rank(k.cost);
            // More co-located first: descending.
            let col = u64::from(max_col - k.colocated);
            let (nonzero, value) = k.ready_slot();
            let slot =
                (u64::from(nonzero) << (slot_bits - 1)) | (value.wrapping_sub(min_slot) as u64);
            (((head << cost_bits | cost) << col_bits | col) << slot_bits) | slot
        })
        .collect();
    Some((packed, key_bits))
}

/// Sorts integers whose set bits all lie below `bits`: least-significant-digit radix sort,
/// 11 bits a pass (linear in the count, where a comparison sort is n log n); small
/// inputs go to the standard sort.
fn radix_sort(v: &mut Vec<u64>, bits: u32) {
    const DIGIT: u32 = 11;
    if v.len() < 512 {
        v.sort_unstable();
        return;
    }
    let mask = (1u64 << DIGIT) - 1;
    let mut out = vec![0u64; v.len()];
    let mut shift = 0;
    while shift < bits {
        let mut starts = [0usize; 1 << DIGIT];
        for &x in v.iter() {
            if let Some(c) = starts.get_mut(((x >> shift) & mask) as usize) {
                *c += 1;
            }
        }
        let mut sum = 0;
        for c in starts.iter_mut() {
            let count = *c;
            *c = sum;
            sum += count;
        }
        for &x in v.iter() {
            if let Some(c) = starts.get_mut(((x >> shift) & mask) as usize) {
                if let Some(slot) = out.get_mut(*c) {
                    *slot = x;
                }
                *c += 1;
            }
        }
        std::mem::swap(v, &mut out);
        shift += DIGIT;
    }
}

/// Sorts `(block key, index)` pairs by key then index. When both fit in 64 bits they are
/// packed into one integer each and radix-sorted.
fn sort_packed(packed: Vec<u64>, key_bits: u32) -> Vec<(u64, u32)> {
    let n = packed.len() as u64;
    let index_bits = u64::BITS - n.leading_zeros();
    if key_bits + index_bits <= 64 {
        let mut v: Vec<u64> = packed
            .into_iter()
            .zip(0u64..)
            .map(|(k, i)| (k << index_bits) | i)
            .collect();
        radix_sort(&mut v, key_bits + index_bits);
        let mask = (1u64 << index_bits) - 1;
        return v
            .into_iter()
            .map(|e| (e >> index_bits, (e & mask) as u32))
            .collect();
    }
    let mut v: Vec<(u64, u32)> = packed.into_iter().zip(0u32..).collect();
    v.sort_unstable();
    v
}

/// The deletion order: indices into `candidates`, first to go first, with the keys. Only
/// the blocks that reach into positions `0..limit` are ordered inside; the others keep
/// their pods in block-key order. The explanation of the pod at `limit − 1` still holds:
/// when the next position starts a block, every pod of that block differs from it by the
/// same rule (rules 1–5 and the ready slot are the block's).
pub(super) fn order(
    candidates: &[Digested],
    related: &[Digested],
    now: Time,
    gates: &FeatureGates,
    limit: usize,
) -> (Vec<Key>, Vec<u32>) {
    let colocated = colocation(candidates, related);
    let keys: Vec<Key> = candidates
        .iter()
        .zip(colocated)
        .zip(0u32..)
        .map(|((p, n), i)| Key::new(i, p.digest, n, now, gates))
        .collect();
    // Sort by the block key; with LogarithmicScaleDown its parts span few bits and pack
    // into one u64, which sorts much faster than the general (u128, u128) key.
    let sorted: Vec<(u64, u32)> = match packed_block_keys(&keys) {
        Some((packed, key_bits)) => sort_packed(packed, key_bits),
        None => {
            let mut v: Vec<((u128, u128), u32)> =
                keys.iter().map(|k| (k.block_key(), k.index)).collect();
            v.sort_unstable();
            // Dense block numbers in place of the wide keys.
            let mut dense = 0u64;
            let mut prev = None;
            v.into_iter()
                .map(|(k, i)| {
                    if prev.is_some_and(|p| p != k) {
                        dense += 1;
                    }
                    prev = Some(k);
                    (dense, i)
                })
                .collect()
        }
    };
    let mut order: Vec<u32> = sorted.iter().map(|e| e.1).collect();
    let mut scratch = Scratch::default();
    let mut start = 0;
    // Blocks starting at `limit` or later are not needed.
    while start < sorted.len() && start < limit {
        let block_key = sorted.get(start).map(|e| e.0);
        let mut end = start + 1;
        while sorted.get(end).map(|e| e.0) == block_key {
            end += 1;
        }
        if end - start > 1 {
            if let Some(block) = order.get_mut(start..end) {
                order_block(
                    &keys,
                    candidates,
                    block,
                    &mut scratch,
                    gates.logarithmic_scale_down,
                );
            }
        }
        start = end;
    }
    (keys, order)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block of `n` ready pods with distinct UID ranks and few distinct ready times,
    /// later keys and creation times, so that ties (and intransitive groups) abound.
    fn block(seed: u64, n: u32) -> Vec<Member> {
        let mut x = seed | 1;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        (0..n)
            .map(|i| Member {
                index: i,
                uid: i,
                ready: next(4),
                later: u128::from(next(3)),
                created: next(3),
                w: 0,
            })
            .collect()
    }

    fn scores(mut members: Vec<Member>) -> Vec<(u32, i64)> {
        members.sort_by_key(|m| m.index);
        members.iter().map(|m| (m.index, m.w)).collect()
    }

    #[test]
    fn radix_sort_sorts() {
        for (n, bits) in [(0usize, 1u32), (100, 20), (5000, 43), (20_000, 64)] {
            let mut x = 0x2545_f491_4f6c_dd1du64;
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            let mut v: Vec<u64> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x & mask
                })
                .collect();
            let mut expected = v.clone();
            expected.sort_unstable();
            radix_sort(&mut v, bits);
            assert_eq!(v, expected, "{n} values of {bits} bits");
        }
    }

    /// The lean scoring of ready blocks gives every pod the same score as the general
    /// one, on 2,000 random blocks of 2 to 40 pods.
    #[test]
    fn ready_block_scores_equal_the_general_scores() {
        for seed in 1..=2000u64 {
            let n = 2 + (seed % 39) as u32;
            let members = block(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15), n);
            let mut general = members.clone();
            score_block(&mut general, true, true);
            let mut lean = members;
            let mut by_time: Vec<(u64, u32)> = lean.iter().map(|m| m.ready).zip(0u32..).collect();
            by_time.sort_unstable();
            score_ready_block(&mut lean, &by_time, &mut ClassScratch::default());
            assert_eq!(scores(general), scores(lean), "seed {seed}, {n} pods");
        }
    }
}
