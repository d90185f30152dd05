//! Instants and durations with nanosecond precision, as the controller reads them.
//!
//! Kubernetes writes `metav1.Time` as RFC 3339 with whole seconds and `metav1.MicroTime`
//! with fractions; the logarithmic scale-down buckets are log2 of nanoseconds, so
//! an instant is kept as signed nanoseconds since the Unix epoch. Go's zero time
//! (`0001-01-01T00:00:00Z`, written as `null`) is represented by `Option::None` at the
//! field that holds it: the rules that care about "zero" read the
//! option.

use std::fmt;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An instant: nanoseconds since 1970-01-01T00:00:00Z (covers 1677..2262). On the wire,
/// an RFC 3339 string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(type = "string"))]
pub struct Time(i64);

/// A signed span of time in nanoseconds. On the wire, seconds (a float when fractional):
/// exact to the nanosecond up to 2^50 ns (about 13 days); beyond, to an `f64`'s precision
/// (steps of about two microseconds at 280 years).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(type = "number"))]
pub struct Duration(i64);

/// Why a timestamp string was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeError {
    /// The text is not an RFC 3339 timestamp.
    #[error("invalid RFC 3339 timestamp {}", crate::error::quoted(.0))]
    Syntax(String),
    /// The timestamp is outside the years [`Time`] holds.
    #[error(
        "timestamp {} is outside the representable range (years 1678 to 2261)",
        crate::error::quoted(.0)
    )]
    OutOfRange(String),
}

impl Time {
    /// The instant `nanos` nanoseconds after the Unix epoch.
    pub const fn from_unix_nanos(nanos: i64) -> Self {
        Time(nanos)
    }

    /// The instant `seconds` seconds after the Unix epoch (saturating).
    pub const fn from_unix_seconds(seconds: i64) -> Self {
        Time(seconds.saturating_mul(1_000_000_000))
    }

    /// Nanoseconds since the Unix epoch.
    pub const fn unix_nanos(self) -> i64 {
        self.0
    }

    /// Parses RFC 3339 (any offset, optional fraction). Go's zero time parses to `None`.
    pub fn parse(text: &str) -> Result<Option<Time>, TimeError> {
        let parsed = DateTime::parse_from_rfc3339(text.trim())
            .map_err(|_| TimeError::Syntax(text.to_owned()))?;
        let utc = parsed.with_timezone(&Utc);
        if utc == DateTime::<Utc>::MIN_UTC || is_go_zero(&utc) {
            return Ok(None);
        }
        utc.timestamp_nanos_opt()
            .map(|n| Some(Time(n)))
            .ok_or_else(|| TimeError::OutOfRange(text.to_owned()))
    }

    /// `self - earlier`, saturating like Go's `time.Time.Sub`.
    pub fn since(self, earlier: Time) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }

    /// `self + d`, saturating like Go's `time.Time.Add`.
    pub fn plus(self, d: Duration) -> Time {
        Time(self.0.saturating_add(d.0))
    }

    /// RFC 3339 in UTC; whole seconds when there is no fraction (as `metav1.Time`).
    pub fn to_rfc3339(self) -> String {
        let secs = self.0.div_euclid(1_000_000_000);
        let nanos = self.0.rem_euclid(1_000_000_000) as u32;
        match DateTime::<Utc>::from_timestamp(secs, nanos) {
            Some(dt) => dt.to_rfc3339_opts(SecondsFormat::AutoSi, true),
            None => String::from("invalid"),
        }
    }
}

fn is_go_zero(t: &DateTime<Utc>) -> bool {
    // 0001-01-01T00:00:00Z is Go's zero time: seconds since epoch -62135596800.
    t.timestamp() == -62_135_596_800 && t.timestamp_subsec_nanos() == 0
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

impl Duration {
    /// No time.
    pub const ZERO: Duration = Duration(0);

    /// A span of `n` nanoseconds.
    pub const fn from_nanos(n: i64) -> Self {
        Duration(n)
    }

    /// A span of `s` seconds (saturating).
    pub const fn from_seconds(s: i64) -> Self {
        Duration(s.saturating_mul(1_000_000_000))
    }

    /// The span in nanoseconds.
    pub const fn as_nanos(self) -> i64 {
        self.0
    }

    /// The span in seconds, as a float.
    pub fn as_seconds_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// `self - other`, saturating.
    pub fn minus(self, other: Duration) -> Duration {
        Duration(self.0.saturating_sub(other.0))
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.as_seconds_f64();
        if self.0 % 1_000_000_000 == 0 {
            write!(f, "{}s", self.0 / 1_000_000_000)
        } else {
            write!(f, "{secs:.3}s")
        }
    }
}

impl Serialize for Time {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339())
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_str(TimeVisitor)? {
            Some(t) => Ok(t),
            None => Err(serde::de::Error::custom(
                "the zero time (0001-01-01T00:00:00Z) is not allowed here",
            )),
        }
    }
}

/// Reads a timestamp string without copying it.
struct TimeVisitor;

impl<'de> serde::de::Visitor<'de> for TimeVisitor {
    type Value = Option<Time>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an RFC 3339 timestamp")
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Option<Time>, E> {
        Time::parse(s).map_err(E::custom)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Option<Time>, E> {
        Ok(None)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Option<Time>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<Time>, D::Error> {
        d.deserialize_str(self)
    }
}

impl Serialize for Duration {
    /// Durations cross the wire as seconds (a float when fractional).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.as_seconds_f64())
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let secs = f64::deserialize(d)?;
        if !secs.is_finite() || secs.abs() > 9.0e9 {
            return Err(serde::de::Error::custom(format!(
                "duration of {secs} seconds is out of range"
            )));
        }
        Ok(Duration((secs * 1e9).round() as i64))
    }
}

/// Deserializes an optional timestamp: absent, `null` and Go's zero time are `None`.
pub fn deserialize_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Time>, D::Error> {
    d.deserialize_option(TimeVisitor)
}

/// Serializes an optional timestamp as Go does: `null` for the zero time.
pub fn serialize_opt<S: Serializer>(t: &Option<Time>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => t.serialize(s),
        None => s.serialize_none(),
    }
}

/// The logarithmic age bucket of R-73: `-1` when `now - t <= 0`, else `⌊log2(ns)⌋`
/// computed as Go's `int(math.Log2(float64(d)))` does (frexp, then `log(frac)/ln 2 + exp`).
pub fn log2_bucket(now: Time, t: Time) -> i32 {
    let d = now.since(t).as_nanos();
    if d <= 0 {
        return -1;
    }
    let (frac, exp) = frexp(d as f64);
    // Away from the ends of [0.5, 1), Go's float formula truncates to exp − 1 exactly;
    // only near them can its rounding differ from the integer answer, so only there is
    // the formula itself evaluated.
    if frac > 0.5 + 1e-9 && frac < 1.0 - 1e-9 {
        return exp - 1;
    }
    go_log2(d as f64) as i32
}

/// Go's `math.Log2` (pure-Go algorithm): exact for powers of two.
fn go_log2(x: f64) -> f64 {
    let (frac, exp) = frexp(x);
    if frac == 0.5 {
        return f64::from(exp - 1);
    }
    frac.ln() * (1.0 / std::f64::consts::LN_2) + f64::from(exp)
}

/// `x = frac × 2^exp` with `frac ∈ [0.5, 1)`, for positive finite normal `x`.
fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let raw_exp = ((bits >> 52) & 0x7ff) as i32;
    if raw_exp == 0 {
        // Subnormal: cannot arise from an i64 nanosecond count ≥ 1.
        return (x, 0);
    }
    let exp = raw_exp - 1022;
    let frac_bits = (bits & !(0x7ffu64 << 52)) | (1022u64 << 52);
    (f64::from_bits(frac_bits), exp)
}
