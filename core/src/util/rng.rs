//! The only source of randomness (the simulator's and the rollout forecast's): xoshiro256**
//! seeded through SplitMix64, so
//! a scenario's seed fixes every draw. Same algorithm and integer arithmetic everywhere
//! (native and wasm give the same sequence).

/// SplitMix64: expands one 64-bit seed into well-mixed words (and seeds xoshiro).
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next word.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// xoshiro256** (Blackman and Vigna), seeded by SplitMix64.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

/// The characters of generated names (Kubernetes' `utilrand.String` alphabet: no vowels,
/// no confusable digits), also the alphabet of `rand.SafeEncodeString` (the
/// `pod-template-hash`). The one copy: hosts ask for it (`generatedNameAlphabet()`).
pub const NAME_ALPHABET: &[u8; 27] = b"bcdfghjklmnpqrstvwxz2456789";
/// How many characters of [`NAME_ALPHABET`] a `generateName` prefix gets (upstream's
/// `names.SimpleNameGenerator`, `randomLength`). The one copy: hosts ask for it
/// (`generatedNameSuffixLength()`).
pub const NAME_SUFFIX_LEN: usize = 5;
const ALPHANUMS: &[u8] = NAME_ALPHABET;

impl Rng {
    /// A generator seeded with `seed` through [`SplitMix64`].
    pub fn new(seed: u64) -> Self {
        let mut sm = SplitMix64::new(seed);
        Rng {
            s: [sm.next_u64(), sm.next_u64(), sm.next_u64(), sm.next_u64()],
        }
    }

    /// The next word.
    pub fn next_u64(&mut self) -> u64 {
        let [s0, s1, s2, s3] = self.s;
        let result = s1.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s1 << 17;
        let s2 = s2 ^ s0;
        let s3 = s3 ^ s1;
        let s1 = s1 ^ s2;
        let s0 = s0 ^ s3;
        let s2 = s2 ^ t;
        let s3 = s3.rotate_left(45);
        self.s = [s0, s1, s2, s3];
        result
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; `0` when `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `min..=max` (`min` when `max <= min`).
    pub fn between(&mut self, min: u64, max: u64) -> u64 {
        if max <= min {
            return min;
        }
        min + self.below(max - min + 1)
    }

    /// True with probability `p` (clamped to [0, 1]); draws nothing when `p` is 0 or 1,
    /// so turning a fault off does not shift the other draws' sequence more than needed.
    pub fn chance(&mut self, p: f64) -> bool {
        if p <= 0.0 || p.is_nan() {
            return false;
        }
        if p >= 1.0 {
            return true;
        }
        // 53 random bits as a fraction in [0, 1).
        let x = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        x < p
    }

    /// `n` characters for a generated name (`generateName` suffix).
    pub fn name_suffix(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| {
                let i = self.below(ALPHANUMS.len() as u64) as usize;
                ALPHANUMS.get(i).copied().map_or('x', char::from)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // First outputs for seed 0 (the published reference sequence).
        let mut sm = SplitMix64::new(0);
        assert_eq!(sm.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(sm.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn same_seed_same_sequence_other_seed_other_sequence() {
        let a: Vec<u64> = (0..8)
            .scan(Rng::new(7), |r, _| Some(r.next_u64()))
            .collect();
        let b: Vec<u64> = (0..8)
            .scan(Rng::new(7), |r, _| Some(r.next_u64()))
            .collect();
        let c: Vec<u64> = (0..8)
            .scan(Rng::new(8), |r, _| Some(r.next_u64()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn ranges_and_chances_stay_in_bounds() {
        let mut r = Rng::new(42);
        for _ in 0..1000 {
            let x = r.between(5, 9);
            assert!((5..=9).contains(&x));
            assert!(r.below(3) < 3);
        }
        assert_eq!(r.between(4, 4), 4);
        assert_eq!(r.between(9, 4), 9);
        assert!(!r.chance(0.0));
        assert!(r.chance(1.0));
        let hits = (0..10_000).filter(|_| r.chance(0.25)).count();
        assert!((2000..3000).contains(&hits), "{hits}");
        let name = r.name_suffix(NAME_SUFFIX_LEN);
        assert_eq!(name.len(), 5);
        assert!(name.bytes().all(|b| ALPHANUMS.contains(&b)));
    }
}
