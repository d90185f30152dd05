//! A small, fast, non-cryptographic hasher for the engine's internal maps keyed by short
//! strings (node names, pod keys). The keys come from the host's own objects, and the
//! maps live for one call, so collision resistance against an attacker is not needed;
//! SipHash costs more than the rest of the work on these paths.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A multiply-fold hash over 8-byte words (in the manner of rustc's Fx hash, whose
/// multiply-rotate step it replaces: there the top byte of one word reached only a few
/// bits of the state and could cancel against the next word, so that 10,000 generated
/// pod names such as `web-7d9f8b6c5d-22bbb` gave only 5,455 distinct 64-bit hashes).
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// One word into the state: the full 128-bit product of (state xor word) and an odd
/// constant, its halves folded, so every input bit reaches every output bit.
#[inline]
fn fold(hash: u64, word: u64) -> u64 {
    let x = u128::from(hash ^ word).wrapping_mul(u128::from(SEED));
    (x as u64) ^ ((x >> 64) as u64)
}

/// The little-endian word at `at` (0 past the end).
#[inline]
fn word(bytes: &[u8], at: usize) -> u64 {
    bytes
        .get(at..at + 8)
        .and_then(|w| <[u8; 8]>::try_from(w).ok())
        .map_or(0, u64::from_le_bytes)
}

/// `bytes` folded into `hash`: their length, then each whole word, the last one read
/// overlapping the one before it when the length is not a multiple of 8 (no copy);
/// shorter texts are one word padded with zeros.
#[inline]
pub(crate) fn hash_bytes(hash: u64, bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let mut h = fold(hash, n as u64 ^ SEED);
    if n >= 8 {
        let mut at = 0;
        while at + 8 < n {
            h = fold(h, word(bytes, at));
            at += 8;
        }
        h = fold(h, word(bytes, n - 8));
    } else if n > 0 {
        let mut w = 0_u64;
        for (i, b) in bytes.iter().enumerate() {
            w |= u64::from(*b) << (8 * i);
        }
        h = fold(h, w);
    }
    h
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.hash = hash_bytes(self.hash, bytes);
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.hash = fold(self.hash, u64::from(i));
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.hash = fold(self.hash, i as u64);
    }

    /// The state with its high bits folded into the low ones once more (a murmur3-style
    /// finaliser), so the low bits, which pick the bucket (and the only bits left on
    /// 32-bit targets such as wasm32), depend on every input bit: with the former
    /// multiply-rotate, keys that differ only near their end (`web-1-c1`, `web-1-c2`, …)
    /// collided in long chains, and inserting 40,000 such pods into the store took
    /// minutes.
    #[inline]
    fn finish(&self) -> u64 {
        let mut h = self.hash;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^ (h >> 33)
    }
}

pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;
pub(crate) type FxHashMap<K, V> = HashMap<K, V, FxBuild>;
pub(crate) type FxHashSet<K> = HashSet<K, FxBuild>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    /// Keys differing only in their last bytes spread over the low bits of the hash
    /// (those a table of n buckets uses), 32-bit truncation included.
    #[test]
    fn keys_differing_at_the_end_spread_over_the_low_bits() {
        let build = FxBuild::default();
        let mut buckets = std::collections::HashSet::new();
        for copy in 0..64 {
            let key = format!("shop-web-7d9f8b6c5d-abcde-c{copy}");
            buckets.insert((build.hash_one(key.as_str()) as u32) & 1023);
        }
        assert!(
            buckets.len() > 48,
            "only {} distinct buckets of 64 keys",
            buckets.len()
        );
    }

    /// 10,000 generated pod names (upstream's benchmark shape) hash to 10,000 distinct
    /// values, also in 32 bits; texts differing in length or in one byte differ.
    #[test]
    fn generated_pod_names_do_not_collide() {
        const DIGITS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        let build = FxBuild::default();
        let mut full = std::collections::HashSet::new();
        let mut low = std::collections::HashSet::new();
        for i in 0..10_000_usize {
            let mut name = String::from("web-7d9f8b6c5d-");
            let mut n = i;
            for _ in 0..5 {
                name.push(char::from(DIGITS[n % DIGITS.len()]));
                n /= DIGITS.len();
            }
            let h = build.hash_one(name.as_str());
            full.insert(h);
            low.insert(h as u32);
        }
        assert_eq!(full.len(), 10_000);
        assert!(low.len() > 9_980, "{} distinct 32-bit hashes", low.len());
        assert_ne!(hash_bytes(0, b""), hash_bytes(0, b"\0"));
        assert_ne!(hash_bytes(0, b"abcdefgh"), hash_bytes(0, b"abcdefgh\0"));
        assert_ne!(hash_bytes(0, b"abcdefghij"), hash_bytes(0, b"abcdefghik"));
    }
}
