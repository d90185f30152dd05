//! A small, fast, non-cryptographic hasher for the engine's internal maps keyed by short
//! strings (node names, pod keys). The keys come from the host's own objects, and the
//! maps live for one call, so collision resistance against an attacker is not needed;
//! SipHash costs more than the rest of the work on these paths.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The Fx hash (as in rustc): multiply-rotate over 8-byte words.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            for (d, s) in w.iter_mut().zip(rest) {
                *d = *s;
            }
            self.add(u64::from_le_bytes(w));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    /// The Fx state with its high bits folded into the low ones (a murmur3-style
    /// finaliser): the multiply leaves the low bits, which pick the bucket (and the only
    /// bits left on 32-bit targets such as wasm32), depending on few input bits, so keys
    /// that differ only near their end (`web-1-c1`, `web-1-c2`, …) collided in long
    /// chains: inserting 40,000 such pods into the store took minutes.
    #[inline]
    fn finish(&self) -> u64 {
        let mut h = self.hash;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^ (h >> 33)
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = HashMap<K, V, FxBuild>;
pub type FxHashSet<K> = HashSet<K, FxBuild>;

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
}
