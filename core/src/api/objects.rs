//! Objects must be JSON objects. serde's derived structs also accept arrays (fields by
//! position), so `"metadata": []` or `"spec": [5]` would silently read as something;
//! these helpers make every struct-typed field accept a map and nothing else, keeping the
//! field path of any error.

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A `T` read from a JSON object only.
pub struct Object<T>(pub T);

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ObjectVisitor(PhantomData)).map(Object)
    }
}

/// `#[serde(deserialize_with = "objects::object")]` for a required struct field.
pub fn object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    Object::<T>::deserialize(d).map(|o| o.0)
}

/// For an optional struct field: `null` or an object.
pub fn opt_object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    Option::<Object<T>>::deserialize(d).map(|o| o.map(|o| o.0))
}

struct ListVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of objects")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Vec<T>, E> {
        Ok(Vec::new())
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Vec<T>, E> {
        Ok(Vec::new())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Vec<T>, D::Error> {
        d.deserialize_seq(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Vec<T>, A::Error> {
        let items = Vec::<Object<T>>::deserialize(SeqAccessDeserializer::new(seq))?;
        // Moved into a list of exactly its length: the growing list's block is freed
        // and taken again by the next list read, so one object's parts stay side by side
        // (a list's spare room between them spreads 10,000 pods over a third more memory).
        let mut exact = Vec::with_capacity(items.len());
        exact.extend(items.into_iter().map(|o| o.0));
        Ok(exact)
    }
}

/// For a list of structs: an array of objects; `null` reads as empty (Go's nil slice).
pub fn objects<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    d.deserialize_option(ListVisitor(PhantomData))
}

/// For an optional list of structs (`None` when absent or `null`).
pub fn opt_objects<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Vec<T>>, D::Error> {
    struct Opt<T>(PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for Opt<T> {
        type Value = Option<Vec<T>>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an array of objects or null")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_seq(ListVisitor(PhantomData)).map(Some)
        }
    }
    d.deserialize_option(Opt(PhantomData))
}

/// Reads a `W` from a JSON object and converts it with `convert`, inside the object's own
/// deserialization, so a refused conversion is reported at the object's path (a
/// conversion after deserializing, as serde's `try_from` does it, loses the position).
pub fn converted<'de, D, W, T, E>(d: D, convert: fn(W) -> Result<T, E>) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    W: Deserialize<'de>,
    E: fmt::Display,
{
    struct Converting<W, T, E>(fn(W) -> Result<T, E>);
    impl<'de, W: Deserialize<'de>, T, E: fmt::Display> Visitor<'de> for Converting<W, T, E> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            let wire = W::deserialize(MapAccessDeserializer::new(map))?;
            (self.0)(wire).map_err(serde::de::Error::custom)
        }
    }
    d.deserialize_map(Converting(convert))
}

/// `#[serde(default, deserialize_with = "objects::present")]`: a field that is `Some`
/// whenever it is there, `null` included (read as `T` reads `null`); `None` only when
/// absent. (For `T = Option<U>`: absent, `null` and a value are three cases.)
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// A variant's field read from a flat wire object (the tagged values read without
/// serde's buffer, see [`converted`]): `what` is the variant (`this op`,
/// `action "create"`), refused as "{what} requires the field `{field}`".
pub fn required<T>(value: Option<T>, what: &str, field: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("{what} requires the field `{field}`"))
}
