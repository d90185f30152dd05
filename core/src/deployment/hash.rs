//! The `pod-template-hash` label value, exactly as upstream computes it
//! (`controller.ComputeHash`; DEPLOYMENT.md, kind `deployment-hash`).
//!
//! Upstream decodes the template JSON into the Go value `v1.PodTemplateSpec`, prints that
//! value with go-spew (`dump.ForHash`: `%#v`, map keys sorted, methods disabled, no
//! pointer addresses), feeds the text to 32-bit FNV-1a, then, when the Deployment has a
//! `collisionCount`, 8 more bytes (the count as u32 little-endian and four zero bytes),
//! and writes the sum in decimal with every digit replaced from a "safe" alphabet.
//!
//! This module writes the same text without a Go value: it walks the JSON along the type
//! layout in `go_layout`, deciding for each Go field what encoding/json would have
//! put there (absent, null, a value, or an error) and printing it the way go-spew prints
//! that Go type. What encoding/json does and this walk mirrors:
//!
//! * object members match fields by JSON name, exactly or case-insensitively; members
//!   naming no field are ignored; embedded (`inline`) structs read the same object;
//! * `null` leaves a string, number, bool or struct at its zero value and makes a
//!   pointer, slice or map nil; `[]` and `{}` make empty (non-nil) slices and maps;
//! * a JSON value of the wrong type for a field is an error (upstream's decode fails).
//!
//! Values whose Go rendering this walk cannot reproduce exactly are errors rather than
//! wrong hashes: quantities that `ParseQuantity` keeps as `inf.Dec` (more than 18 digits,
//! below nano, binary values too large for the fast path), quantities given as JSON
//! floats (the original text is lost), non-null timestamps (they decode to the
//! controller's local time zone, whose `time.Location` go-spew prints in full), non-null
//! `managedFields[].fieldsV1` (raw bytes of the original text), and several members that
//! set the same field with different values (encoding/json keeps the last one in document
//! order, which a parsed JSON value no longer knows).

use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::go_layout::{struct_type, underlying, Decode, GoStruct, Json};
use crate::error::Error;
use crate::quantity::{interpret_suffix, split_quantity, BINARY_SI, DECIMAL_SI};

/// The `pod-template-hash` label value of `template` (a `PodTemplateSpec` as JSON) with the
/// Deployment's `status.collisionCount`, e.g. `"5f4695c4b4"`.
///
/// Error paths are relative to the template (`spec.containers[0].ports[1].containerPort`);
/// place them with [`Error::under`] (`"spec.template"`).
pub fn pod_template_hash(template: &Value, collision_count: Option<i32>) -> Result<String, Error> {
    template_fnv32a(template, collision_count).map(safe_encode)
}

/// The 32-bit FNV-1a sum behind [`pod_template_hash`].
pub fn template_fnv32a(template: &Value, collision_count: Option<i32>) -> Result<u32, Error> {
    let dump = template_dump(template)?;
    let mut hash = Fnv32a::new();
    hash.write(dump.as_bytes());
    if let Some(count) = collision_count {
        hash.write(&collision_bytes(count));
    }
    Ok(hash.sum())
}

/// The go-spew text of the decoded template that [`template_fnv32a`] hashes.
pub fn template_dump(template: &Value) -> Result<String, Error> {
    let mut spew = Spew {
        out: String::with_capacity(8192),
        ignore_next_type: false,
    };
    spew.format("v1.PodTemplateSpec", Some(template), &Path::Root)?;
    Ok(spew.out)
}

/// 32-bit FNV-1a (Go's `hash/fnv.New32a`).
struct Fnv32a(u32);

impl Fnv32a {
    const OFFSET: u32 = 2_166_136_261;
    const PRIME: u32 = 16_777_619;

    fn new() -> Self {
        Fnv32a(Self::OFFSET)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u32::from(b)).wrapping_mul(Self::PRIME);
        }
    }

    fn sum(&self) -> u32 {
        self.0
    }
}

/// The 8 bytes upstream appends for a collision count: `uint32(count)` little-endian,
/// then four zero bytes (a `make([]byte, 8)` of which `PutUint32` fills the first four).
fn collision_bytes(count: i32) -> [u8; 8] {
    let [a, b, c, d] = count.to_le_bytes();
    [a, b, c, d, 0, 0, 0, 0]
}

/// `rand.SafeEncodeString(fmt.Sprint(sum))`: each decimal digit `c` (a byte 48..=57)
/// becomes `ALPHABET[c % 27]`.
fn safe_encode(sum: u32) -> String {
    const ALPHABET: &[u8; 27] = crate::rng::NAME_ALPHABET;
    sum.to_string()
        .bytes()
        .filter_map(|c| ALPHABET.get(usize::from(c) % ALPHABET.len()))
        .map(|&b| char::from(b))
        .collect()
}

/// Where a value is in the template, built only when an error needs it.
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn render(&self) -> String {
        match self {
            Path::Root => String::new(),
            Path::Key(parent, key) => {
                let mut s = parent.render();
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(key);
                s
            }
            Path::Index(parent, i) => format!("{}[{i}]", parent.render()),
        }
    }

    fn error(&self, message: impl Into<String>) -> Error {
        Error::Malformed {
            path: self.render(),
            message: message.into(),
        }
    }
}

/// A Go type spelled as `reflect` spells it, split at its outermost constructor.
enum Shape<'t> {
    Pointer(&'t str),
    Slice(&'t str),
    Map(&'t str, &'t str),
    String,
    Bool,
    Int(i64, i64),
    Uint(u64),
    Struct(&'static GoStruct),
}

fn shape(ty: &str) -> Option<Shape<'_>> {
    if let Some(elem) = ty.strip_prefix('*') {
        return Some(Shape::Pointer(elem));
    }
    if let Some(elem) = ty.strip_prefix("[]") {
        return Some(Shape::Slice(elem));
    }
    if let Some(rest) = ty.strip_prefix("map[") {
        let (key, value) = rest.split_once(']')?;
        return Some(Shape::Map(key, value));
    }
    let basic = match ty {
        "string" => Shape::String,
        "bool" => Shape::Bool,
        "int8" => Shape::Int(i8::MIN.into(), i8::MAX.into()),
        "int16" => Shape::Int(i16::MIN.into(), i16::MAX.into()),
        "int32" => Shape::Int(i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => Shape::Int(i64::MIN, i64::MAX),
        "uint8" => Shape::Uint(u8::MAX.into()),
        "uint16" => Shape::Uint(u16::MAX.into()),
        "uint32" => Shape::Uint(u32::MAX.into()),
        "uint64" | "uint" => Shape::Uint(u64::MAX),
        _ => {
            if let Some(s) = struct_type(ty) {
                return Some(Shape::Struct(s));
            }
            return underlying(ty).and_then(shape);
        }
    };
    Some(basic)
}

/// go-spew's `formatState` for the `%#v` verb with `DisableMethods`, `SortKeys` and
/// `DisablePointerAddresses`, over (Go type, JSON) instead of a reflected Go value.
/// `ignore_next_type` is spew's flag of the same name, kept with the same quirks (a nil
/// pointer printed as a slice element or map value leaves it set).
struct Spew {
    out: String,
    ignore_next_type: bool,
}

impl Spew {
    /// Prints the Go value of type `ty` that encoding/json makes from `json` (`None`: the
    /// member is absent, so the zero value).
    fn format(&mut self, ty: &str, json: Option<&Value>, path: &Path) -> Result<(), Error> {
        let shape = shape(ty).ok_or_else(|| path.error(format!("no layout for Go type {ty}")))?;
        // `null` is the zero value for every type: nil for pointers, slices and maps,
        // untouched (zero) for the rest, including the types with their own UnmarshalJSON.
        let json = json.filter(|v| !v.is_null());
        if let Shape::Pointer(elem) = shape {
            return self.format_pointer(ty, elem, json, path);
        }
        if !self.ignore_next_type {
            self.out.push('(');
            self.out.push_str(ty);
            self.out.push(')');
        }
        self.ignore_next_type = false;
        match shape {
            Shape::Pointer(_) => Ok(()),
            Shape::String => {
                match json {
                    None => {}
                    Some(Value::String(s)) => self.out.push_str(s),
                    Some(v) => {
                        return Err(path.error(format!(
                            "expected a string, got {}",
                            crate::error::json_type(v)
                        )))
                    }
                }
                Ok(())
            }
            Shape::Bool => {
                match json {
                    None => self.out.push_str("false"),
                    Some(Value::Bool(b)) => self.out.push_str(if *b { "true" } else { "false" }),
                    Some(v) => {
                        return Err(path.error(format!(
                            "expected a boolean, got {}",
                            crate::error::json_type(v)
                        )))
                    }
                }
                Ok(())
            }
            Shape::Int(min, max) => {
                let n = match json {
                    None => 0,
                    Some(v) => v
                        .as_i64()
                        .filter(|n| (min..=max).contains(n))
                        .ok_or_else(|| {
                            path.error(format!("expected an integer in {ty} range, got {v}"))
                        })?,
                };
                let _ = write!(self.out, "{n}");
                Ok(())
            }
            Shape::Uint(max) => {
                let n = match json {
                    None => 0,
                    Some(v) => v.as_u64().filter(|n| *n <= max).ok_or_else(|| {
                        path.error(format!("expected an integer in {ty} range, got {v}"))
                    })?,
                };
                let _ = write!(self.out, "{n}");
                Ok(())
            }
            Shape::Slice(elem) => match json {
                None => {
                    self.out.push_str("<nil>");
                    Ok(())
                }
                Some(Value::Array(items)) => {
                    self.out.push('[');
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            self.out.push(' ');
                        }
                        self.ignore_next_type = true;
                        self.format(elem, Some(item), &Path::Index(path, i))?;
                    }
                    self.out.push(']');
                    Ok(())
                }
                Some(v) => Err(path.error(format!(
                    "expected an array, got {}",
                    crate::error::json_type(v)
                ))),
            },
            Shape::Map(key, value) => self.format_map(ty, key, value, json, path),
            Shape::Struct(st) => self.format_struct(st, json, path),
        }
    }

    fn format_pointer(
        &mut self,
        ty: &str,
        elem: &str,
        json: Option<&Value>,
        path: &Path,
    ) -> Result<(), Error> {
        if json.is_none() && self.ignore_next_type {
            self.out.push_str("<nil>");
            return Ok(());
        }
        if self.ignore_next_type {
            // Not nil: encoding/json allocates every level of a multi-level pointer.
            let levels = ty.len() - ty.trim_start_matches('*').len();
            self.out.push('<');
            self.out.extend(std::iter::repeat_n('*', levels));
            self.out.push('>');
        } else {
            self.out.push('(');
            self.out.push_str(ty);
            self.out.push(')');
        }
        match json {
            None => {
                self.out.push_str("<nil>");
                Ok(())
            }
            Some(v) => {
                self.ignore_next_type = true;
                self.format(elem, Some(v), path)
            }
        }
    }

    fn format_map(
        &mut self,
        ty: &str,
        key: &str,
        value: &str,
        json: Option<&Value>,
        path: &Path,
    ) -> Result<(), Error> {
        if !matches!(shape(key), Some(Shape::String)) {
            return Err(path.error(format!("no layout for the keys of Go type {ty}")));
        }
        let members = match json {
            None => {
                self.out.push_str("<nil>");
                return Ok(());
            }
            Some(Value::Object(members)) => members,
            Some(v) => {
                return Err(path.error(format!(
                    "expected an object, got {}",
                    crate::error::json_type(v)
                )))
            }
        };
        let mut keys: Vec<&String> = members.keys().collect();
        crate::sort::sort(&mut keys);
        self.out.push_str("map[");
        for (i, k) in keys.into_iter().enumerate() {
            if i > 0 {
                self.out.push(' ');
            }
            self.out.push_str(k);
            self.out.push(':');
            self.ignore_next_type = true;
            self.format(value, members.get(k), &Path::Key(path, k))?;
        }
        self.out.push(']');
        Ok(())
    }

    fn format_struct(
        &mut self,
        st: &'static GoStruct,
        json: Option<&Value>,
        path: &Path,
    ) -> Result<(), Error> {
        let synthesized;
        let members: Option<&Map<String, Value>> = match (st.decode, json) {
            (_, None) => None,
            (Decode::Object, Some(Value::Object(m))) => Some(m),
            (Decode::Object, Some(v)) => {
                return Err(path.error(format!(
                    "expected an object, got {}",
                    crate::error::json_type(v)
                )));
            }
            (Decode::Quantity, Some(v)) => {
                synthesized = quantity_fields(v, path)?;
                Some(&synthesized)
            }
            (Decode::IntOrString, Some(v)) => {
                synthesized = int_or_string_fields(v, path)?;
                Some(&synthesized)
            }
            (Decode::Time, Some(v)) => {
                return Err(path.error(format!(
                    "a timestamp in a pod template cannot be hashed exactly (upstream decodes it \
                     into the controller's local time zone); got {}",
                    crate::error::json_type(v)
                )));
            }
            (Decode::FieldsV1, Some(_)) => {
                return Err(path.error(
                    "fieldsV1 cannot be hashed exactly (upstream hashes the raw bytes of the original text)",
                ));
            }
        };
        self.out.push('{');
        for (i, field) in st.fields.iter().enumerate() {
            if i > 0 {
                self.out.push(' ');
            }
            self.out.push_str(field.go);
            self.out.push(':');
            match field.json {
                Json::Skip => self.format(field.ty, None, path)?,
                Json::Inline => self.format(field.ty, members.and(json), path)?,
                Json::Key(name) => {
                    let value = match members {
                        None => None,
                        Some(m) => member(m, name, path)?,
                    };
                    self.format(field.ty, value, &Path::Key(path, name))?;
                }
            }
        }
        self.out.push('}');
        Ok(())
    }
}

/// The member encoding/json stores into the field with JSON name `name`: one whose key is
/// `name` or equal to it under encoding/json's case folding (`foldName`). Several such
/// members with different values are refused: upstream keeps the last in document order.
fn member<'v>(
    members: &'v Map<String, Value>,
    name: &str,
    path: &Path,
) -> Result<Option<&'v Value>, Error> {
    let mut found: Option<(&String, &Value)> = None;
    for (key, value) in members {
        if !folds_to(key, name) {
            continue;
        }
        match found {
            Some((first, v)) if v != value => {
                return Err(Path::Key(path, name).error(format!(
                    "members {first:?} and {key:?} both set this field with different values \
                     (encoding/json keeps the last in document order, which is not known here)"
                )));
            }
            Some(_) => {}
            None => found = Some((key, value)),
        }
    }
    Ok(found.map(|(_, v)| v))
}

/// Whether encoding/json's `foldName(key) == foldName(name)` for an ASCII `name`: ASCII
/// letters compare case-insensitively, and `unicode.ToUpper(unicode.ToLower(r))` maps four
/// non-ASCII letters onto ASCII ones (`İ`, `ı` → `I`, `ſ` → `S`, `K` (Kelvin) → `K`).
fn folds_to(key: &str, name: &str) -> bool {
    if key == name {
        return true;
    }
    let mut want = name.bytes();
    for c in key.chars() {
        let folded = match c {
            'a'..='z' => c.to_ascii_uppercase(),
            '\u{130}' | '\u{131}' => 'I',
            '\u{17f}' => 'S',
            '\u{212a}' => 'K',
            _ if c.is_ascii() => c,
            _ => return false,
        };
        match want.next() {
            Some(b) if char::from(b.to_ascii_uppercase()) == folded => {}
            _ => return false,
        }
    }
    want.next().is_none()
}

/// `intstr.IntOrString.UnmarshalJSON`: a JSON string is `Type: String` (1), anything else
/// is decoded as the `int32` `IntVal` with `Type: Int` (0). As the fields of the Go struct.
fn int_or_string_fields(v: &Value, path: &Path) -> Result<Map<String, Value>, Error> {
    let mut m = Map::new();
    match v {
        Value::String(s) => {
            m.insert("Type".into(), Value::from(1));
            m.insert("StrVal".into(), Value::String(s.clone()));
        }
        Value::Number(n) if n.as_i64().is_some_and(|n| i32::try_from(n).is_ok()) => {
            m.insert("Type".into(), Value::from(0));
            m.insert("IntVal".into(), v.clone());
        }
        _ => return Err(path.error(format!("expected a string or an int32, got {v}"))),
    }
    Ok(m)
}

/// `resource.Quantity.UnmarshalJSON` as the fields of the Go struct (`i`, `d`, `s`,
/// `Format`).
fn quantity_fields(v: &Value, path: &Path) -> Result<Map<String, Value>, Error> {
    let text = match v {
        Value::String(s) => s.clone(),
        // The quotes are optional: a JSON number's text is parsed too. serde_json keeps
        // integers exactly but not the text of other numbers (`1e3`, `0.50`).
        Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
        Value::Number(n) => {
            return Err(path.error(format!(
                "quantity {n} given as a JSON number that is not an integer cannot be hashed exactly; \
                 write it as a string"
            )));
        }
        _ => {
            return Err(path.error(format!(
                "expected a quantity string, got {}",
                crate::error::json_type(v)
            )))
        }
    };
    let q = parse_quantity(text.trim()).map_err(|e| match e {
        QuantityError::Invalid(why) => path.error(format!("quantity {text:?}: {why}")),
        QuantityError::Inexact => path.error(format!(
            "quantity {text:?} is kept as an arbitrary-precision decimal (inf.Dec) by upstream, \
             whose rendering is not reproduced; it cannot be hashed exactly"
        )),
    })?;
    let mut amount = Map::new();
    amount.insert("value".into(), Value::from(q.value));
    amount.insert("scale".into(), Value::from(q.scale));
    let mut m = Map::new();
    m.insert("i".into(), Value::Object(amount));
    if let Some(s) = q.cached {
        m.insert("s".into(), Value::String(s.into()));
    }
    m.insert("Format".into(), Value::String(q.format.into()));
    Ok(m)
}

/// A quantity `ParseQuantity` keeps in its int64 form.
#[derive(Debug, PartialEq, Eq)]
struct Int64Quantity<'s> {
    value: i64,
    scale: i32,
    /// The input text, cached as the canonical string when it already is one.
    cached: Option<&'s str>,
    format: &'static str,
}

#[derive(Debug, PartialEq, Eq)]
enum QuantityError {
    /// Upstream refuses the text.
    Invalid(&'static str),
    /// Upstream accepts it as an `inf.Dec`, which is not rendered here.
    Inexact,
}

/// upstream `ParseQuantity` on its int64 fast path; the `inf.Dec` path is
/// [`QuantityError::Inexact`].
fn parse_quantity(s: &str) -> Result<Int64Quantity<'_>, QuantityError> {
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
    use serde_json::json;

    /// A template as the API server defaults it (vector deployment-hash-0002).
    fn nginx() -> Value {
        json!({"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [{"name": "nginx",
            "image": "registry.example.com/core/nginx:1.6.9",
            "resources": {"requests": {"cpu": "250m", "memory": "1Gi"}},
            "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"},
                "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
            "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
            "imagePullPolicy": "IfNotPresent"}], "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
            "nodeSelector": {"kubernetes.io/os": "linux", "node-role": "a"}, "securityContext": {},
            "schedulerName": "default-scheduler"}})
    }

    fn fnv(bytes: &[u8]) -> u32 {
        let mut h = Fnv32a::new();
        h.write(bytes);
        h.sum()
    }

    fn dump(v: Value) -> String {
        template_dump(&v).unwrap()
    }

    fn error_path(v: Value) -> String {
        template_dump(&v).unwrap_err().path().to_owned()
    }

    #[test]
    fn fnv1a_32_known_values() {
        assert_eq!(fnv(b""), 0x811c_9dc5);
        assert_eq!(fnv(b"a"), 0xe40c_292c);
        assert_eq!(fnv(b"foobar"), 0xbf9c_f968);
        // Writing in pieces is writing the concatenation.
        let mut h = Fnv32a::new();
        h.write(b"foo");
        h.write(b"bar");
        assert_eq!(h.sum(), 0xbf9c_f968);
    }

    #[test]
    fn safe_alphabet_maps_each_decimal_digit() {
        assert_eq!(safe_encode(1_902_517_060), "5f4695c4b4");
        assert_eq!(safe_encode(0), "4");
        assert_eq!(safe_encode(123_456_789), "56789bcdf");
        assert_eq!(safe_encode(u32::MAX), "86f8fbc6f9");
    }

    #[test]
    fn collision_count_is_u32_little_endian_then_four_zero_bytes() {
        assert_eq!(collision_bytes(0), [0; 8]);
        assert_eq!(collision_bytes(256), [0, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(collision_bytes(i32::MAX), [255, 255, 255, 127, 0, 0, 0, 0]);
        assert_eq!(collision_bytes(-1), [255, 255, 255, 255, 0, 0, 0, 0]);
        let t = nginx();
        let mut text = template_dump(&t).unwrap().into_bytes();
        assert_eq!(template_fnv32a(&t, None).unwrap(), fnv(&text));
        text.extend_from_slice(&[11, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(template_fnv32a(&t, Some(11)).unwrap(), fnv(&text));
        assert_ne!(
            template_fnv32a(&t, Some(0)).unwrap(),
            template_fnv32a(&t, None).unwrap()
        );
    }

    #[test]
    fn a_recorded_vector() {
        assert_eq!(template_fnv32a(&nginx(), Some(11)).unwrap(), 106_510_393);
        assert_eq!(pod_template_hash(&nginx(), Some(11)).unwrap(), "54b9547f7");
    }

    #[test]
    fn empty_template_is_the_zero_value() {
        let text = dump(json!({}));
        assert!(text.starts_with(
            "(v1.PodTemplateSpec){ObjectMeta:(v1.ObjectMeta){Name:(string) GenerateName:(string) \
             Namespace:(string) SelfLink:(string) UID:(types.UID) ResourceVersion:(string) \
             Generation:(int64)0 CreationTimestamp:(v1.Time){Time:(time.Time){wall:(uint64)0 \
             ext:(int64)0 loc:(*time.Location)<nil>}} DeletionTimestamp:(*v1.Time)<nil> "
        ));
        assert!(text.contains("} Spec:(v1.PodSpec){Volumes:([]v1.Volume)<nil> InitContainers:"));
        assert!(text.ends_with(" SchedulingGroup:(*v1.PodSchedulingGroup)<nil>}}"));
        // null members and a null template decode to the same zero value.
        assert_eq!(dump(json!(null)), text);
        assert_eq!(
            dump(json!({"metadata": null, "spec": {"hostname": null}})),
            text
        );
        assert_eq!(
            pod_template_hash(&json!({}), None).unwrap(),
            safe_encode(fnv(text.as_bytes()))
        );
    }

    #[test]
    fn quantities_render_their_int64_form() {
        let text = dump(json!({"spec": {"containers": [{"resources": {"limits": {
            "memory": "256Mi", "cpu": "1", "ephemeral-storage": " 1Gi "}}}]}}));
        assert!(text.contains(
            "Limits:(v1.ResourceList)map[cpu:{i:(resource.int64Amount){value:(int64)1 \
             scale:(resource.Scale)0} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)1 \
             Format:(resource.Format)DecimalSI} ephemeral-storage:{i:(resource.int64Amount)\
             {value:(int64)1073741824 scale:(resource.Scale)0} d:(resource.infDecAmount)\
             {Dec:(*inf.Dec)<nil>} s:(string)1Gi Format:(resource.Format)BinarySI} \
             memory:{i:(resource.int64Amount){value:(int64)268435456 scale:(resource.Scale)0} \
             d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string) \
             Format:(resource.Format)BinarySI}] Requests:(v1.ResourceList)<nil>"
        ));
        // A pointer to a quantity (emptyDir.sizeLimit) prints its type once.
        let text =
            dump(json!({"spec": {"volumes": [{"name": "v", "emptyDir": {"sizeLimit": 500}}]}}));
        assert!(text.contains(
            "EmptyDir:(*v1.EmptyDirVolumeSource){Medium:(v1.StorageMedium) \
             SizeLimit:(*resource.Quantity){i:(resource.int64Amount){value:(int64)500 \
             scale:(resource.Scale)0} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} \
             s:(string)500 Format:(resource.Format)DecimalSI}}"
        ));
    }

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

    #[test]
    fn unrepresentable_quantities_are_errors() {
        for v in [
            json!("1.5n"),
            json!(0.5),
            json!("12345678901234567890"),
            json!(true),
        ] {
            let e = template_dump(&json!({"spec": {"overhead": {"cpu": v}}})).unwrap_err();
            assert_eq!(e.path(), "spec.overhead.cpu", "{v}");
        }
    }

    #[test]
    fn map_keys_are_sorted_bytewise_and_empty_collections_are_not_nil() {
        let text = dump(
            json!({"metadata": {"labels": {"b": "2", "a": "1", "B": "0", "": "e"}},
            "spec": {"nodeSelector": {}, "containers": [{"args": [], "command": null}]}}),
        );
        assert!(text.contains("Labels:(map[string]string)map[:e B:0 a:1 b:2] Annotations:"));
        assert!(text.contains("NodeSelector:(map[string]string)map[] "));
        assert!(text.contains("Command:([]string)<nil> Args:([]string)[] WorkingDir:"));
    }

    #[test]
    fn int_or_string_and_pointers() {
        let text = dump(
            json!({"spec": {"containers": [{"livenessProbe": {"tcpSocket": {"port": "http"}},
            "securityContext": {"runAsUser": 1000, "privileged": false}}]}}),
        );
        assert!(text.contains(
            "TCPSocket:(*v1.TCPSocketAction){Port:(intstr.IntOrString){Type:(intstr.Type)1 \
             IntVal:(int32)0 StrVal:(string)http} Host:(string)}"
        ));
        assert!(text.contains("Privileged:(*bool)false"));
        assert!(text.contains("RunAsUser:(*int64)1000"));
    }

    #[test]
    fn members_match_case_insensitively_as_in_encoding_json() {
        let plain = dump(json!({"spec": {"containers": [{"name": "x", "stdin": true}]}}));
        assert_eq!(
            dump(json!({"Spec": {"CONTAINERS": [{"Name": "x", "stdIn": true}]}})),
            plain
        );
        // ſ (U+017F) folds to S, K (Kelvin sign) to K.
        assert!(folds_to("\u{17f}pec", "spec"));
        assert!(folds_to("\u{212a}ind", "kind"));
        assert!(!folds_to("spec2", "spec"));
        assert!(!folds_to("spe", "spec"));
        assert!(!folds_to("sp\u{e9}c", "spec"));
        // Several members for one field: the same value is fine, different values are refused.
        assert_eq!(
            dump(json!({"spec": {"hostname": "a", "Hostname": "a"}})),
            dump(json!({"spec": {"hostname": "a"}}))
        );
        assert_eq!(
            error_path(json!({"spec": {"hostname": "a", "Hostname": "b"}})),
            "spec.hostname"
        );
        // Members naming no field are ignored.
        assert_eq!(
            dump(
                json!({"spec": {"containers": [{"name": "x", "stdin": true, "bogus": [1]}]}, "status": {}})
            ),
            plain
        );
    }

    #[test]
    fn wrong_types_name_the_field_path() {
        let port = json!({"spec": {"containers": [{"ports": [{"containerPort": 80}, {"containerPort": "80"}]}]}});
        assert_eq!(
            error_path(port),
            "spec.containers[0].ports[1].containerPort"
        );
        assert_eq!(
            error_path(json!({"metadata": {"labels": {"app": 1}}})),
            "metadata.labels.app"
        );
        assert_eq!(
            error_path(json!({"spec": {"hostNetwork": "true"}})),
            "spec.hostNetwork"
        );
        assert_eq!(
            error_path(json!({"spec": {"priority": 2_147_483_648_i64}})),
            "spec.priority"
        );
        assert_eq!(
            error_path(json!({"spec": {"priority": 1.0}})),
            "spec.priority"
        );
        assert_eq!(error_path(json!({"spec": {"volumes": {}}})), "spec.volumes");
        assert_eq!(
            error_path(json!({"spec": {"volumes": [{"name": "v", "hostPath": "/x"}]}})),
            "spec.volumes[0].hostPath"
        );
        assert_eq!(error_path(json!([])), "");
        assert_eq!(
            error_path(json!({"metadata": {"creationTimestamp": "2026-01-01T00:00:00Z"}})),
            "metadata.creationTimestamp"
        );
        assert_eq!(
            error_path(json!({"metadata": {"managedFields": [{"fieldsV1": {"f:spec": {}}}]}})),
            "metadata.managedFields[0].fieldsV1"
        );
        let e = pod_template_hash(&json!({"spec": {"hostNetwork": 1}}), None).unwrap_err();
        assert_eq!(
            e.under("spec.template").path(),
            "spec.template.spec.hostNetwork"
        );
    }

    /// Every subtree of a realistic template replaced by values of every JSON type: the
    /// result is a dump or an error naming a path at or below the replaced one, never a
    /// panic.
    #[test]
    fn any_value_anywhere_is_a_dump_or_a_path_error() {
        /// (JSON pointer, error path) of every member and element.
        fn paths(v: &Value, ptr: &str, at: &str, out: &mut Vec<(String, String)>) {
            let children: Vec<(String, String, &Value)> = match v {
                Value::Object(m) => m
                    .iter()
                    .map(|(k, c)| {
                        let p = if at.is_empty() {
                            k.clone()
                        } else {
                            format!("{at}.{k}")
                        };
                        (
                            format!("{ptr}/{}", k.replace('~', "~0").replace('/', "~1")),
                            p,
                            c,
                        )
                    })
                    .collect(),
                Value::Array(a) => a
                    .iter()
                    .enumerate()
                    .map(|(i, c)| (format!("{ptr}/{i}"), format!("{at}[{i}]"), c))
                    .collect(),
                _ => Vec::new(),
            };
            for (p, a, c) in children {
                out.push((p.clone(), a.clone()));
                paths(c, &p, &a, out);
            }
        }
        let mut base = nginx();
        base["spec"]["volumes"] = json!([{"name": "c", "configMap": {"name": "c", "items": [{"key": "k", "path": "p"}]}}]);
        base["spec"]["tolerations"] =
            json!([{"key": "k", "operator": "Exists", "tolerationSeconds": 5}]);
        let mut all = Vec::new();
        paths(&base, "", "", &mut all);
        let replacements = [
            json!(null),
            json!(true),
            json!(-1),
            json!(1.5),
            json!("x"),
            json!([]),
            json!({}),
            json!([1, "a"]),
            json!({"a": [null]}),
        ];
        let mut errors = 0;
        for (pointer, path) in &all {
            for r in &replacements {
                let mut t = base.clone();
                *t.pointer_mut(pointer).unwrap() = r.clone();
                if let Err(e) = template_dump(&t) {
                    errors += 1;
                    assert!(e.path().starts_with(path.as_str()), "{path} := {r}: {e}");
                }
            }
        }
        assert!(errors > 100, "{errors}");
    }
}
