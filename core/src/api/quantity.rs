//! `resource.Quantity` as the controllers read and write it (a shared foundation): the
//! grammar `ParseQuantity` accepts, the exact value it keeps, `MilliValue()`,
//! `AsApproximateFloat64()`, and the canonical text `String()` writes for the milli
//! quantities the autoscaler reports (H-103, H-149).
//!
//! A quantity is kept as upstream keeps it after parsing, `mantissa × 10^exponent`, not
//! normalized: `300m` is 300 × 10⁻³ and `0.3` is 3 × 10⁻¹. The distinction matters to
//! `AsApproximateFloat64`, which multiplies the mantissa by a power of ten in float64
//! (300 × 0.001 = 0.3 but 3 × 0.1 = 0.30000000000000004).

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub(crate) const DECIMAL_SI: &str = "DecimalSI";
pub(crate) const BINARY_SI: &str = "BinarySI";
pub(crate) const DECIMAL_EXPONENT: &str = "DecimalExponent";

/// upstream's refusal of text that is not a quantity.
pub(crate) const SYNTAX: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/// The parts `parseQuantityString` splits a quantity into.
pub(crate) struct QuantityParts<'s> {
    pub(crate) positive: bool,
    pub(crate) num: &'s str,
    pub(crate) denom: &'s str,
    pub(crate) suffix: &'s str,
}

fn is_digit(b: Option<&u8>) -> bool {
    b.is_some_and(u8::is_ascii_digit)
}

/// upstream `parseQuantityString`: sign, numerator without leading zeros, fraction,
/// suffix (letters, then an optional sign and digits for exponents).
pub(crate) fn split_quantity(s: &str) -> Result<QuantityParts<'_>, &'static str> {
    let bytes = s.as_bytes();
    let end = bytes.len();
    let mut pos = 0;
    let mut positive = true;
    match bytes.first() {
        Some(b'-') => {
            positive = false;
            pos += 1;
        }
        Some(b'+') => pos += 1,
        _ => {}
    }
    while bytes.get(pos) == Some(&b'0') {
        pos += 1;
    }
    let whole = |num, denom, suffix| QuantityParts {
        positive,
        num,
        denom,
        suffix,
    };
    if pos >= end {
        return Ok(whole("0", "", ""));
    }
    let num_start = pos;
    while is_digit(bytes.get(pos)) {
        pos += 1;
    }
    let mut num = s.get(num_start..pos).unwrap_or("");
    if pos >= end {
        return Ok(whole(num, "", ""));
    }
    if num.is_empty() {
        num = "0";
    }
    let mut denom = "";
    if bytes.get(pos) == Some(&b'.') {
        pos += 1;
        let denom_start = pos;
        while is_digit(bytes.get(pos)) {
            pos += 1;
        }
        denom = s.get(denom_start..pos).unwrap_or("");
        if pos >= end {
            return Ok(whole(num, denom, ""));
        }
    }
    let suffix_start = pos;
    while bytes.get(pos).is_some_and(|b| b"eEinumkKMGTP".contains(b)) {
        pos += 1;
    }
    if pos < end && matches!(bytes.get(pos), Some(b'-' | b'+')) {
        pos += 1;
    }
    while is_digit(bytes.get(pos)) {
        pos += 1;
    }
    if pos < end {
        return Err(SYNTAX);
    }
    Ok(whole(num, denom, s.get(suffix_start..).unwrap_or("")))
}

/// upstream `quantitySuffixer.interpret`: base, exponent and format of a suffix.
pub(crate) fn interpret_suffix(suffix: &str) -> Option<(u32, i32, &'static str)> {
    let known = match suffix {
        "" => (10, 0, DECIMAL_SI),
        "n" => (10, -9, DECIMAL_SI),
        "u" => (10, -6, DECIMAL_SI),
        "m" => (10, -3, DECIMAL_SI),
        "k" => (10, 3, DECIMAL_SI),
        "M" => (10, 6, DECIMAL_SI),
        "G" => (10, 9, DECIMAL_SI),
        "T" => (10, 12, DECIMAL_SI),
        "P" => (10, 15, DECIMAL_SI),
        "E" => (10, 18, DECIMAL_SI),
        "Ki" => (2, 10, BINARY_SI),
        "Mi" => (2, 20, BINARY_SI),
        "Gi" => (2, 30, BINARY_SI),
        "Ti" => (2, 40, BINARY_SI),
        "Pi" => (2, 50, BINARY_SI),
        "Ei" => (2, 60, BINARY_SI),
        _ => {
            let digits = suffix.strip_prefix(['e', 'E']).filter(|d| !d.is_empty())?;
            // strconv.ParseInt(…, 10, 64), then int32(…) (which truncates).
            let exponent: i64 = digits.parse().ok()?;
            return Some((10, exponent as i32, DECIMAL_EXPONENT));
        }
    };
    Some(known)
}

/// How a quantity is written (upstream `resource.Format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A decimal SI suffix: `m`, `k`, `M`, `G`, …
    DecimalSi,
    /// A binary SI suffix: `Ki`, `Mi`, `Gi`, …
    BinarySi,
    /// A decimal exponent: `e3`, `E6`, …
    DecimalExponent,
}

/// A `resource.Quantity`: `mantissa × 10^exponent`, as upstream keeps it after parsing,
/// with the format its suffix chose. Written as upstream's `String()` writes it: the
/// canonical text (which is the text it was read from when that was canonical, so the
/// text itself need not be kept).
#[derive(Clone, Debug)]
pub struct Quantity {
    mantissa: i128,
    exponent: i32,
    format: Format,
}

/// Why a text is not a quantity.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct QuantityError(pub String);

const NANO: i32 = -9;

impl Quantity {
    /// upstream `ParseQuantity`: the grammar, the suffixes, values below a nano rounded up
    /// (away from zero), magnitudes capped at 2⁶³−1.
    pub fn parse(text: &str) -> Result<Quantity, QuantityError> {
        let s = text.trim();
        if s.is_empty() {
            return Err(QuantityError(SYNTAX.into()));
        }
        let parts = split_quantity(s).map_err(|e| QuantityError(e.into()))?;
        let (base, exp, format) = interpret_suffix(parts.suffix)
            .ok_or_else(|| QuantityError("unable to parse quantity's suffix".into()))?;
        let format = match format {
            BINARY_SI => Format::BinarySi,
            DECIMAL_EXPONENT => Format::DecimalExponent,
            _ => Format::DecimalSi,
        };
        let too_long = || {
            QuantityError(format!(
                "quantity {} has too many digits to read",
                crate::error::quoted(s)
            ))
        };
        let digits = parts.num.len() + parts.denom.len();
        if digits > 36 {
            return Err(too_long());
        }
        let mut mantissa: i128 = 0;
        for b in parts.num.bytes().chain(parts.denom.bytes()) {
            mantissa = mantissa * 10 + i128::from(b - b'0');
        }
        let denom = i32::try_from(parts.denom.len()).map_err(|_| too_long())?;
        let mut exponent = -denom;
        if base == 2 {
            let factor = 1_i128
                .checked_shl(u32::try_from(exp).unwrap_or(u32::MAX))
                .ok_or_else(too_long)?;
            mantissa = mantissa.checked_mul(factor).ok_or_else(too_long)?;
        } else {
            exponent = exponent.checked_add(exp).ok_or_else(too_long)?;
        }
        // The smallest amount kept is a nano: anything finer rounds up to the next nano.
        if exponent < NANO && mantissa != 0 {
            let shift = u32::try_from(NANO - exponent).unwrap_or(u32::MAX);
            mantissa = match 10_i128.checked_pow(shift) {
                Some(div) => mantissa / div + i128::from(mantissa % div != 0),
                None => 1,
            };
            exponent = NANO;
        }
        // The largest magnitude kept is 2⁶³−1.
        if exceeds_i64(mantissa, exponent) {
            mantissa = i128::from(i64::MAX);
            exponent = 0;
        }
        let mut format = format;
        if format == Format::BinarySi && mantissa != 0 && exponent < 0 {
            // 0 < q < 1 in binary is written in decimal.
            if magnitude_below_one(mantissa, exponent) {
                format = Format::DecimalSi;
            }
        }
        if !parts.positive {
            mantissa = -mantissa;
        }
        Ok(Quantity {
            mantissa,
            exponent,
            format,
        })
    }

    /// upstream `NewMilliQuantity(value, format)`.
    pub fn from_milli(value: i64, format: Format) -> Quantity {
        Quantity {
            mantissa: i128::from(value),
            exponent: -3,
            format,
        }
    }

    /// upstream `MilliValue()`: the value in thousandths, a fraction rounded away from
    /// zero (H-103); a value too large for an int64 gives 0, as upstream's int64 path.
    pub fn milli_value(&self) -> i64 {
        scaled(self.mantissa, self.exponent, -3)
    }

    /// upstream `AsApproximateFloat64()`: the mantissa times a power of ten, in float64.
    pub fn approximate_f64(&self) -> f64 {
        let base = self.mantissa as f64;
        if self.exponent == 0 {
            return base;
        }
        base * go_pow10(self.exponent)
    }

    /// Whether the value is 0.
    pub fn is_zero(&self) -> bool {
        self.mantissa == 0
    }

    /// The text upstream's `String()` writes for this value (its canonical form).
    pub fn canonical(&self) -> String {
        canonical(self.mantissa, self.exponent, self.format)
    }

    /// Exact comparison of the values (upstream `Cmp`).
    pub fn cmp_value(&self, other: &Quantity) -> Ordering {
        let (a, ea) = normalized(self.mantissa, self.exponent);
        let (b, eb) = normalized(other.mantissa, other.exponent);
        match a.signum().cmp(&b.signum()) {
            Ordering::Equal => {}
            unequal => return unequal,
        }
        let low = ea.min(eb);
        let widen = |m: i128, e: i32| {
            10_i128
                .checked_pow(u32::try_from(e - low).unwrap_or(u32::MAX))
                .and_then(|p| m.checked_mul(p))
        };
        match (widen(a, ea), widen(b, eb)) {
            (Some(x), Some(y)) => x.cmp(&y),
            // One side does not fit once aligned: it is the one with more digits.
            (None, Some(_)) => a.signum().cmp(&0),
            (Some(_), None) => 0.cmp(&b.signum()),
            (None, None) => Ordering::Equal,
        }
    }
}

impl PartialEq for Quantity {
    /// Semantic equality: the same value, whatever the text or format.
    fn eq(&self, other: &Quantity) -> bool {
        self.cmp_value(other) == Ordering::Equal
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

impl Serialize for Quantity {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Quantity;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a quantity (a string such as \"500m\" or \"1Gi\", or a number)")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Quantity, E> {
                Quantity::parse(v)
                    .map_err(|e| E::custom(format!("quantity {}: {e}", crate::error::quoted(v))))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Quantity, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Quantity, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Quantity, E> {
                self.visit_str(&v.to_string())
            }
        }
        d.deserialize_any(V)
    }
}

/// `mantissa × 10^exponent` at `scale` (a power of ten), a fraction rounded away from
/// zero; 0 when it does not fit an int64.
fn scaled(mantissa: i128, exponent: i32, scale: i32) -> i64 {
    let value = if exponent >= scale {
        10_i128
            .checked_pow(u32::try_from(exponent - scale).unwrap_or(u32::MAX))
            .and_then(|p| mantissa.checked_mul(p))
    } else {
        let div = 10_i128.checked_pow(u32::try_from(scale - exponent).unwrap_or(u32::MAX));
        Some(match div {
            Some(div) => {
                let q = mantissa / div;
                match (mantissa % div).signum() {
                    1 => q + 1,
                    -1 => q - 1,
                    _ => q,
                }
            }
            None => mantissa.signum(),
        })
    };
    value.and_then(|v| i64::try_from(v).ok()).unwrap_or(0)
}

fn exceeds_i64(mantissa: i128, exponent: i32) -> bool {
    let magnitude = mantissa.unsigned_abs();
    if exponent <= 0 {
        let div = 10_u128.checked_pow(u32::try_from(-exponent).unwrap_or(u32::MAX));
        return div.is_some_and(|d| magnitude / d > i64::MAX as u128);
    }
    10_u128
        .checked_pow(u32::try_from(exponent).unwrap_or(u32::MAX))
        .and_then(|p| magnitude.checked_mul(p))
        .is_none_or(|v| v > i64::MAX as u128)
}

fn magnitude_below_one(mantissa: i128, exponent: i32) -> bool {
    10_u128
        .checked_pow(u32::try_from(-exponent).unwrap_or(u32::MAX))
        .is_none_or(|d| mantissa.unsigned_abs() < d)
}

/// The value with every factor of ten moved into the exponent.
fn normalized(mut mantissa: i128, mut exponent: i32) -> (i128, i32) {
    if mantissa == 0 {
        return (0, 0);
    }
    while mantissa % 10 == 0 {
        mantissa /= 10;
        exponent += 1;
    }
    (mantissa, exponent)
}

/// upstream `CanonicalizeBytes`: the shortest text of the value in its format.
fn canonical(mantissa: i128, exponent: i32, format: Format) -> String {
    if mantissa == 0 {
        return "0".into();
    }
    if format == Format::BinarySi {
        let whole = scaled(mantissa, exponent, 0);
        let exact = i128::from(whole) * 10_i128.pow(0) == mantissa_at_zero(mantissa, exponent);
        let small = whole > -1024 && whole < 1024 && exact;
        if exact && !small && whole != 0 {
            let (mut amount, mut times) = (i128::from(whole), 0usize);
            while amount.abs() >= 1024 && amount % 1024 == 0 {
                amount /= 1024;
                times += 1;
            }
            let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
                .get(times)
                .copied()
                .unwrap_or("");
            return format!("{amount}{suffix}");
        }
    }
    let (mut amount, mut exp) = normalized(mantissa, exponent);
    while exp.rem_euclid(3) != 0 {
        amount = amount.saturating_mul(10);
        exp -= 1;
    }
    let suffix = if format == Format::DecimalExponent {
        if exp == 0 {
            String::new()
        } else {
            format!("e{exp}")
        }
    } else {
        match exp {
            -9 => "n",
            -6 => "u",
            -3 => "m",
            3 => "k",
            6 => "M",
            9 => "G",
            12 => "T",
            15 => "P",
            18 => "E",
            _ => "",
        }
        .to_owned()
    };
    format!("{amount}{suffix}")
}

/// The value as an integer when it is one (else a value that differs from every integer
/// scaled back: used only to test exactness).
fn mantissa_at_zero(mantissa: i128, exponent: i32) -> i128 {
    if exponent >= 0 {
        return 10_i128
            .checked_pow(u32::try_from(exponent).unwrap_or(u32::MAX))
            .and_then(|p| mantissa.checked_mul(p))
            .unwrap_or(i128::MAX);
    }
    match 10_i128.checked_pow(u32::try_from(-exponent).unwrap_or(u32::MAX)) {
        Some(d) if mantissa % d == 0 => mantissa / d,
        _ => i128::MAX,
    }
}

/// Go's `math.Pow10`: exact table values, products and quotients of them.
pub(crate) fn go_pow10(n: i32) -> f64 {
    const TAB: [f64; 32] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
    ];
    const POS32: [f64; 10] = [
        1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
    ];
    const NEG32: [f64; 11] = [
        1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
    ];
    let at = |t: &[f64], i: u32| t.get(i as usize).copied().unwrap_or(1.0);
    if (0..=308).contains(&n) {
        let n = n.unsigned_abs();
        return at(&POS32, n / 32) * at(&TAB, n % 32);
    }
    if (-323..=0).contains(&n) {
        let n = n.unsigned_abs();
        return at(&NEG32, n / 32) / at(&TAB, n % 32);
    }
    if n > 0 {
        f64::INFINITY
    } else {
        0.0
    }
}

impl Quantity {
    /// The exact value in nano-units (a quantity keeps nothing finer).
    pub(crate) fn nanos(&self) -> i128 {
        let shift = self.exponent.saturating_add(9);
        if shift >= 0 {
            10_i128
                .checked_pow(shift.unsigned_abs())
                .and_then(|p| self.mantissa.checked_mul(p))
                .unwrap_or(if self.mantissa < 0 {
                    i128::MIN
                } else {
                    i128::MAX
                })
        } else {
            10_i128
                .checked_pow(shift.unsigned_abs())
                .map_or(0, |d| self.mantissa / d)
        }
    }
}

/// A nano-unit amount in milli-units, a fraction rounded away from zero (`MilliValue()`
/// of a sum of quantities); 0 when it does not fit an int64.
pub(crate) fn nanos_to_milli(nanos: i128) -> i64 {
    scaled(nanos, -9, -3)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap()
    }

    #[test]
    fn milli_value_rounds_fractions_away_from_zero() {
        assert_eq!(q("500m").milli_value(), 500);
        assert_eq!(q("1").milli_value(), 1000);
        assert_eq!(q("1n").milli_value(), 1);
        assert_eq!(q("1500u").milli_value(), 2);
        assert_eq!(q("-1.5m").milli_value(), -2);
        assert_eq!(q("2.222").milli_value(), 2222);
        assert_eq!(q("1Ki").milli_value(), 1_024_000);
    }

    #[test]
    fn approximate_float_keeps_the_parsed_mantissa() {
        assert_eq!(q("300m").approximate_f64(), 300.0 * 0.001);
        assert_eq!(q("0.3").approximate_f64(), 3.0 * 0.1);
        assert_ne!(q("300m").approximate_f64(), q("0.3").approximate_f64());
        assert_eq!(q("50m").approximate_f64(), 0.05);
        assert_eq!(q("1").approximate_f64(), 1.0);
    }

    #[test]
    fn milli_quantities_are_written_as_upstream_writes_them() {
        let d = |v| Quantity::from_milli(v, Format::DecimalSi).to_string();
        let b = |v| Quantity::from_milli(v, Format::BinarySi).to_string();
        assert_eq!(d(4368), "4368m");
        assert_eq!(d(12000), "12");
        assert_eq!(d(12_000_000), "12k");
        assert_eq!(d(0), "0");
        assert_eq!(d(1500), "1500m");
        assert_eq!(d(i64::MIN), "-9223372036854775808m");
        assert_eq!(d(i64::MAX), "9223372036854775807m");
        assert_eq!(b(1000), "1");
        assert_eq!(b(1_000_000), "1k");
        assert_eq!(b(134_217_728_000), "128Mi");
        assert_eq!(b(134_217_728_123), "134217728123m");
        assert_eq!(b(1_500_000), "1500");
    }

    #[test]
    fn equality_is_by_value() {
        assert_eq!(q("1000m"), q("1"));
        assert_eq!(q("1Ki"), q("1024"));
        assert_ne!(q("1"), q("2"));
        assert_eq!(q("0"), q("0m"));
    }

    #[test]
    fn refusals_say_why() {
        assert!(Quantity::parse("").is_err());
        assert!(Quantity::parse("cheese").is_err());
        assert!(Quantity::parse("1Qi").is_err());
    }
}
