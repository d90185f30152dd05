//! The engine's one comparison sort, for every list off the ranking's hot path.
//!
//! The standard library's sorts are generic over the element and the comparator, so each
//! call site with its own closure puts a whole sort (driftsort or ipnsort: quicksort,
//! small-sort networks, merges; 2–4 KB of wasm each) into the binary. [`sort_by`] sorts
//! positions through one non-generic comparator, so the binary holds the standard sort
//! once, on `usize`, whatever the list and the order; what is generic per call site is a
//! few lines that swap the items into place.
//!
//! It is stable (equal items keep their order), as Go's `sort.SliceStable` and as
//! `slice::sort_by`. Upstream's unstable `sort.Sort` calls compare with a total order
//! (ties broken by name or UID), where stability changes nothing.
//!
//! The ranking's key sorts (`rank.rs`) keep the standard unstable sorts on packed integer
//! keys: they order 10,000 pods per sync, and the direct sort is several times faster than
//! sorting positions through a function pointer.

use std::cmp::Ordering;

/// Sorts `items` stably by `compare`.
pub fn sort_by<T>(items: &mut [T], compare: impl Fn(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let order = {
        let view: &[T] = items;
        sorted_positions(view.len(), &|a, b| match (view.get(a), view.get(b)) {
            (Some(a), Some(b)) => compare(a, b),
            // Positions come from `0..len`: never reached.
            _ => Ordering::Equal,
        })
    };
    permute(items, order);
}

/// Moves the item at `order[k]` to position `k`, for every `k`, following each cycle of
/// the permutation with swaps (no copy of the items, no allocation).
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    let len = items.len().min(order.len());
    for start in 0..len {
        let mut at = start;
        while let Some(slot) = order.get_mut(at) {
            let from = std::mem::replace(slot, at);
            if from == at || from == start || from >= len {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

/// Sorts `items` stably by the key `key` gives each.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` into ascending order.
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// `0..len` in the order `compare` gives positions; the one instantiation of the
/// standard sort.
fn sorted_positions(len: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut positions: Vec<usize> = (0..len).collect();
    positions.sort_by(|&a, &b| compare(a, b));
    positions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_by_a_comparator() {
        let mut v = vec![5, 3, 9, 1, 1, 7];
        sort_by(&mut v, |a, b| b.cmp(a));
        assert_eq!(v, [9, 7, 5, 3, 1, 1]);
        let mut v = vec!["b".to_owned(), "c".to_owned(), "a".to_owned()];
        sort(&mut v);
        assert_eq!(v, ["a", "b", "c"]);
    }

    #[test]
    fn is_stable() {
        // Pairs compared by their first field only keep their input order among equals.
        let mut v: Vec<(u8, usize)> = [3u8, 1, 3, 2, 1, 3, 2, 1].into_iter().zip(0..).collect();
        sort_by_key(&mut v, |p| p.0);
        assert_eq!(
            v,
            [
                (1, 1),
                (1, 4),
                (1, 7),
                (2, 3),
                (2, 6),
                (3, 0),
                (3, 2),
                (3, 5)
            ]
        );
    }

    #[test]
    fn agrees_with_the_standard_stable_sort() {
        // A seeded list with many ties, against `slice::sort_by_key`.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for len in [0usize, 1, 2, 3, 17, 20, 64, 500] {
            let v: Vec<(u64, usize)> = (0..len)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % 7, i)
                })
                .collect();
            let mut ours = v.clone();
            sort_by_key(&mut ours, |p| p.0);
            let mut std = v;
            std.sort_by_key(|p| p.0);
            assert_eq!(ours, std, "len {len}");
        }
    }

    #[test]
    fn moves_items_without_cloning() {
        // Items that are not Clone move into place; none is lost or duplicated.
        struct Item(u32, String);
        let mut v: Vec<Item> = [4u32, 2, 8, 6]
            .into_iter()
            .map(|n| Item(n, n.to_string()))
            .collect();
        sort_by(&mut v, |a, b| a.0.cmp(&b.0));
        let names: Vec<&str> = v.iter().map(|i| i.1.as_str()).collect();
        assert_eq!(names, ["2", "4", "6", "8"]);
    }
}
