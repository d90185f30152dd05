//! `resource.ParseQuantity`'s int64 fast path: the value, scale and format a quantity
//! string decodes to, which is what go-spew prints of a `resource.Quantity`. What the
//! fast path does not keep (an `inf.Dec`) is an error: the walk cannot print it exactly.

use crate::quantity::{interpret_suffix, split_quantity, BINARY_SI, DECIMAL_SI};

/// A quantity `ParseQuantity` keeps in its int64 form.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Int64Quantity<'s> {
    pub(super) value: i64,
    pub(super) scale: i32,
    /// The input text, cached as the canonical string when it already is one.
    pub(super) cached: Option<&'s str>,
    pub(super) format: &'static str,
}

#[derive(Debug, PartialEq, Eq)]
pub(super) enum QuantityError {
    /// Upstream refuses the text.
    Invalid(&'static str),
    /// Upstream accepts it as an `inf.Dec`, which is not rendered here.
    Inexact,
}

/// upstream `ParseQuantity` on its int64 fast path; the `inf.Dec` path is
/// [`QuantityError::Inexact`].
pub(super) fn parse_quantity(s: &str) -> Result<Int64Quantity<'_>, QuantityError> {
    const MAX_INT64_FACTORS: i64 = 18;
    const NANO: i32 = -9;
    if s.is_empty() {
        return Err(QuantityError::Invalid(crate::quantity::SYNTAX));
    }
    if s == "0" {
        return Ok(Int64Quantity {
            value: 0,
            scale: 0,
            cached: Some(s),
            format: DECIMAL_SI,
        });
    }
    let parts = split_quantity(s).map_err(QuantityError::Invalid)?;
    let (_base, exponent, format) = interpret_suffix(parts.suffix)
        .ok_or(QuantityError::Invalid("unable to parse quantity's suffix"))?;
    let digits = (parts.num.len() + parts.denom.len()) as i64;
    // Go computes the scale in int32 (wrapping); the precision cannot overflow in practice.
    let (precision, mut scale, mantissa): (i64, i32, i64) = if format == BINARY_SI {
        if parts.denom.is_empty() {
            // 15 - len(num) - int32(float32(exponent)*3/10) - 1; exact for 10, 20, …, 60.
            let precision = 15 - parts.num.len() as i64 - i64::from(exponent) * 3 / 10 - 1;
            (precision, 0, 1_i64 << exponent.clamp(0, 62))
        } else {
            (-1, 0, 1)
        }
    } else {
        (MAX_INT64_FACTORS - digits, exponent, 1)
    };
    if precision < 0 {
        return Err(QuantityError::Inexact);
    }
    scale = scale.wrapping_sub(parts.denom.len() as i32);
    if scale < NANO {
        return Err(QuantityError::Inexact);
    }
    let shifted = format!("{}{}", parts.num, parts.denom);
    let value: i64 = shifted
        .parse()
        .map_err(|_| QuantityError::Invalid("unable to parse quantity's numeric part"))?;
    // upstream int64Multiply: a product that overflows takes the inf.Dec path.
    let Some(mut result) = value.checked_mul(mantissa) else {
        return Err(QuantityError::Inexact);
    };
    if !parts.positive {
        result = -result;
    }
    let canonical = if format == BINARY_SI {
        exponent % 10 == 0 && value & 0x07 != 0
    } else {
        scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0')
    };
    Ok(Int64Quantity {
        value: result,
        scale,
        cached: canonical.then_some(s),
        format,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quantity::DECIMAL_EXPONENT;

    #[test]
    fn parse_quantity_follows_the_int64_fast_path() {
        let q = |s| parse_quantity(s).map(|q| (q.value, q.scale, q.cached, q.format));
        assert_eq!(q("0"), Ok((0, 0, Some("0"), DECIMAL_SI)));
        assert_eq!(q("00"), Ok((0, 0, None, DECIMAL_SI)));
        assert_eq!(q("100m"), Ok((100, -3, Some("100m"), DECIMAL_SI)));
        assert_eq!(q("1000m"), Ok((1000, -3, None, DECIMAL_SI)));
        assert_eq!(q("1.5"), Ok((15, -1, None, DECIMAL_SI)));
        assert_eq!(q("1.500"), Ok((1500, -3, Some("1.500"), DECIMAL_SI)));
        assert_eq!(q("0.5"), Ok((5, -1, None, DECIMAL_SI)));
        assert_eq!(q("-2k"), Ok((-2, 3, Some("-2k"), DECIMAL_SI)));
        assert_eq!(q("+2k"), Ok((2, 3, Some("+2k"), DECIMAL_SI)));
        assert_eq!(q("1Ki"), Ok((1024, 0, Some("1Ki"), BINARY_SI)));
        assert_eq!(q("8Ki"), Ok((8192, 0, None, BINARY_SI)));
        assert_eq!(q("12e6"), Ok((12, 6, Some("12e6"), DECIMAL_EXPONENT)));
        assert_eq!(q("1E+3"), Ok((1, 3, Some("1E+3"), DECIMAL_EXPONENT)));
        assert_eq!(q("5e-1"), Ok((5, -1, None, DECIMAL_EXPONENT)));
        assert_eq!(q("1E"), Ok((1, 18, Some("1E"), DECIMAL_SI)));
        assert_eq!(q("3Ti"), Ok((3 << 40, 0, Some("3Ti"), BINARY_SI)));
        // What upstream keeps as inf.Dec.
        assert_eq!(q("1.5n"), Err(QuantityError::Inexact));
        assert_eq!(q("1234567890123456789"), Err(QuantityError::Inexact));
        assert_eq!(q("1.5Gi"), Err(QuantityError::Inexact));
        assert_eq!(q("1Pi"), Err(QuantityError::Inexact));
        // What upstream refuses.
        for bad in ["", "abc", "1x", "1Ki3", "1e", "1.2.3", "--1", "1 m"] {
            assert!(matches!(q(bad), Err(QuantityError::Invalid(_))), "{bad:?}");
        }
    }
}
