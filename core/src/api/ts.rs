//! TypeScript-only helpers of the generated declarations (feature `ts`): types that
//! exist only to be named in `#[ts(as = "…")]` attributes of the boundary types, so that
//! a field reads in TypeScript as the engine reads it in JSON.

use std::marker::PhantomData;

use ts_rs::{Config, Dummy, TypeVisitor, TS};

pub use crate::deployment::KubeObject;

/// `Partial<T>`: a value the engine reads with every field defaulted (struct-level
/// `#[serde(default)]`, e.g. the feature gates of a configuration: the host names the
/// gates it sets, the others keep their defaults). Never declared; names `T`.
pub struct Partial<T>(PhantomData<T>);

impl<T: TS> TS for Partial<T> {
    type WithoutGenerics = Partial<Dummy>;
    type OptionInnerType = Self;

    fn ident(_: &Config) -> String {
        "Partial".to_owned()
    }

    fn name(cfg: &Config) -> String {
        format!("Partial<{}>", T::name(cfg))
    }

    fn inline(cfg: &Config) -> String {
        format!("Partial<{}>", T::inline(cfg))
    }

    fn visit_dependencies(v: &mut impl TypeVisitor)
    where
        Self: 'static,
    {
        T::visit_dependencies(v);
    }

    fn visit_generics(v: &mut impl TypeVisitor)
    where
        Self: 'static,
    {
        T::visit_generics(v);
        v.visit::<T>();
    }
}
