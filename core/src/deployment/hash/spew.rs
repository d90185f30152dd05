//! go-spew's `%#v` of the decoded template (`dump.ForHash`), written by walking the JSON
//! along the Go type layout ([`super::layout`]): what encoding/json would have put in each
//! field, printed as go-spew prints its type (see [`super`] for what the walk mirrors).

use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::layout::{struct_type, underlying, Decode, GoStruct, Json};
use super::quantity::{parse_quantity, QuantityError};
use crate::error::Error;

/// go-spew's text of the template decoded as a `v1.PodTemplateSpec`.
pub(super) fn dump(template: &Value) -> Result<String, Error> {
    let mut spew = Spew {
        out: String::with_capacity(8192),
        ignore_next_type: false,
    };
    spew.format("v1.PodTemplateSpec", Some(template), &Path::Root)?;
    Ok(spew.out)
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
pub(super) fn folds_to(key: &str, name: &str) -> bool {
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
