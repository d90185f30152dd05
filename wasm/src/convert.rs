//! Values across the boundary: JS values and JSON text in (with the field path of any
//! error), plain objects out, and every error as a JS `Error` with `code` and `path`.

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::JsValue;

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

fn join(root: &str, inner: &str) -> String {
    match inner {
        "" | "." => root.to_owned(),
        p if p.starts_with('[') => format!("{root}{p}"),
        p => format!("{root}.{p}"),
    }
}

/// Converts a JS value into `T`; an error names `root` and the path inside it.
pub fn from_js<T: DeserializeOwned>(value: JsValue, root: &str) -> Result<T, JsValue> {
    let de = serde_wasm_bindgen::Deserializer::from(value);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = join(root, &e.path().to_string());
        let message = format!("{path}: {}", e.inner());
        message_error("MALFORMED", &path, &message)
    })
}

/// Parses JSON text into `T`; an error names the path (and the line and column).
pub fn from_json<T: DeserializeOwned>(text: &str) -> Result<T, JsValue> {
    replicore::input::from_json(text.as_bytes()).map_err(|e| error(&e))
}

/// Converts a result into a plain JS object (maps as objects, 64-bit ints as numbers).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsResult {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| message_error("INTERNAL", "", &format!("cannot convert the result: {e}")))
}
