//! Values across the boundary. Object inputs arrive as JSON: the JS wrapper turns objects
//! into text with `JSON.stringify` (which also turns `Date`s into RFC 3339 and refuses
//! cycles) and passes its UTF-8 bytes as a `Uint8Array`, which crosses as one copy (a JS
//! string crosses through wasm-bindgen's character-by-character loop, several times
//! slower on a 4 KB pod). A string is accepted too. No input can be deep or cyclic enough
//! to exhaust the wasm stack: serde_json stops at 128 levels. Results go out as JSON
//! text, written by the same serde_json as reads the inputs: the large ones as text for
//! the wrapper to parse, the others parsed here (`JSON.parse`) into plain objects. One
//! serializer means one instantiation of every result type's `Serialize` in the binary.
//! Every error is a JS `Error` with `code` and `path`.

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};

pub type JsResult = Result<JsValue, JsValue>;

/// A JS `Error` with the engine error's message, `code` and `path`.
pub fn error(e: &replicore::Error) -> JsValue {
    message_error(e.code(), e.path(), &e.to_string())
}

/// A JS `Error` with the given code, path and message.
pub fn message_error(code: &str, path: &str, message: &str) -> JsValue {
    let err = js_sys::Error::new(message);
    // Setting a property on a fresh Error object cannot fail; ignore the Result anyway.
    let _ = js_sys::Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(code));
    let _ = js_sys::Reflect::set(&err, &JsValue::from_str("path"), &JsValue::from_str(path));
    err.into()
}

/// The JSON bytes of `value`: a `Uint8Array` (UTF-8), or a string.
pub fn json_bytes(value: &JsValue, root: &str) -> Result<Vec<u8>, JsValue> {
    if let Some(bytes) = value.dyn_ref::<js_sys::Uint8Array>() {
        return Ok(bytes.to_vec());
    }
    value.as_string().map(String::into_bytes).ok_or_else(|| {
        let at = if root.is_empty() { "." } else { root };
        message_error(
            "MALFORMED",
            at,
            &format!("{at}: expected JSON text or its UTF-8 bytes (the JS wrapper passes objects as JSON)"),
        )
    })
}

/// Parses a JSON object (text) into `T`; errors name `root` and the path inside it.
pub fn object<T: DeserializeOwned>(value: &JsValue, root: &str) -> Result<T, JsValue> {
    let bytes = json_bytes(value, root)?;
    replicore::input::from_json(&bytes).map_err(|e| error(&e.under(root)))
}

/// Parses any JSON document (text) into `T`; errors name `root` and the path inside it.
pub fn any<T: DeserializeOwned>(value: &JsValue, root: &str) -> Result<T, JsValue> {
    let bytes = json_bytes(value, root)?;
    replicore::input::from_json_any(&bytes).map_err(|e| error(&e.under(root)))
}

/// Parses a JSON array of objects (text).
pub fn objects<T: DeserializeOwned>(value: &JsValue, root: &str) -> Result<Vec<T>, JsValue> {
    let list: ObjectList<T> = any(value, root)?;
    Ok(list.0)
}

/// A list whose items are read as objects only, by the same deserializer as every other
/// object (one instantiation per model type in the binary).
struct ObjectList<T>(Vec<T>);

impl<'de, T: DeserializeOwned> serde::Deserialize<'de> for ObjectList<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let items = Vec::<replicore::objects::Object<T>>::deserialize(d)?;
        Ok(ObjectList(items.into_iter().map(|o| o.0).collect()))
    }
}

/// Like [`any`], with `undefined`/`null` meaning the default.
pub fn optional<T: DeserializeOwned + Default>(value: &JsValue, root: &str) -> Result<T, JsValue> {
    if value.is_undefined() || value.is_null() {
        Ok(T::default())
    } else {
        any(value, root)
    }
}

/// A JS string argument. The binding takes `JsValue` rather than `&str`: wasm-bindgen's
/// `&str` glue copies whatever it is given as if it were a string, and a number or an
/// object there traps inside wasm ("memory access out of bounds").
pub fn string(value: &JsValue, path: &str) -> Result<String, JsValue> {
    value.as_string().ok_or_else(|| {
        message_error(
            "MALFORMED",
            path,
            &format!("{path}: expected a string, got {}", js_type(value)),
        )
    })
}

/// Like [`string`], with `undefined`/`null` meaning none.
#[cfg(feature = "sim")]
pub fn opt_string(value: &JsValue, path: &str) -> Result<Option<String>, JsValue> {
    if value.is_undefined() || value.is_null() {
        Ok(None)
    } else {
        string(value, path).map(Some)
    }
}

/// A JS number argument (a `JsValue`, not `f64`: wasm-bindgen's `f64` glue converts
/// with `Number()`, which throws a `TypeError` on a BigInt or a Symbol).
pub fn number(value: &JsValue, path: &str) -> Result<f64, JsValue> {
    value.as_f64().ok_or_else(|| {
        message_error(
            "MALFORMED",
            path,
            &format!("{path}: expected a number, got {}", js_type(value)),
        )
    })
}

/// What a JS value is, for messages (`typeof`, with `null` and arrays told apart).
fn js_type(value: &JsValue) -> String {
    if value.is_null() {
        "null".into()
    } else if js_sys::Array::is_array(value) {
        "an array".into()
    } else {
        value.js_typeof().as_string().unwrap_or_default()
    }
}

/// A whole number within `0..=max` from a JS number.
pub fn count(value: &JsValue, path: &str, max: usize) -> Result<usize, JsValue> {
    let value = number(value, path)?;
    if value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value <= max as f64 {
        Ok(value as usize)
    } else {
        Err(message_error(
            "MALFORMED",
            path,
            // (No float formatting: it would cost the binary more than the message is worth.)
            &format!("{path}: expected a whole number from 0 to {max}"),
        ))
    }
}

/// A large result as its JSON text, for the wrapper to `JSON.parse`: V8 builds the
/// objects of a 500-victim plan from text faster than serde-wasm-bindgen sets their
/// properties one call at a time (A/B in one process: planFor 1k 3.54 → 2.84 ms, 10k
/// 6.43 → 5.91 ms). The same text [`to_js`] parses.
pub fn to_json_text<T: Serialize + ?Sized>(value: &T) -> JsResult {
    serde_json::to_string(value)
        .map(|text| JsValue::from_str(&text))
        .map_err(unconvertible)
}

/// A result that cannot be converted (a bug: every result type is plain data).
fn unconvertible(e: impl std::fmt::Display) -> JsValue {
    message_error("INTERNAL", "", &format!("cannot convert the result: {e}"))
}

/// Converts a result into a plain JS object (maps as objects, 64-bit ints as numbers):
/// its JSON text, parsed by `JSON.parse`. (serde-wasm-bindgen would set the properties
/// one boundary call at a time, and put a second `Serialize` of every result type in the
/// binary: 9 KB gzip of the engine module, 18 KB of the simulator's. Measured in Node on
/// the speed build, 200 calls each: `Store.onPodEvent` 4.5 → 4.2 ms, `complete` of a
/// 500-victim plan 2.4 → 2.3 ms, `EventCorrelator.correlate` 1.40 → 1.45 ms, `slowStart`
/// 0.38 → 0.47 ms.)
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsResult {
    let text = serde_json::to_string(value).map_err(unconvertible)?;
    js_sys::JSON::parse(&text).map_err(|_| message_error("INTERNAL", "", "cannot parse the result"))
}
