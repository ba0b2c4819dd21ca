//! Configuration tables declared once: the error type of every config
//! layer, the table macro [`config_table!`] and the kind-enum macro
//! [`config_kinds!`].
//!
//! Invariants of this layer:
//! - A configuration error is a [`ConfigError`]: the dotted path of the
//!   offending key (relative to the table that reports it; a caller
//!   prefixes its own path with [`ConfigError::under`]) and a reason. It
//!   displays as `path: reason`.
//! - A table's key rows (path, type, default, range, unit, meaning) are
//!   derived from its struct declaration: the type from the field's Rust
//!   type ([`KeyType`]), the default from the serialised `Default` (unless
//!   the declaration gives a text, for defaults computed at build time such
//!   as "the interface capacity"), the meaning from the first line of the
//!   field's doc comment. Nothing else lists the keys.
//! - A kind enum (a table tagged by `kind`) lists each kind once: its
//!   `kind` string, variant and table struct. The kinds list, `kind()`, the
//!   tag's key row and the mounted rows of every kind come from that list;
//!   identical rows of several kinds are one row naming them all in `when`.
//! - Rows are built on first use and live as long as the process.
use crate::schema::{Key, Ty};
use std::fmt;

/// A configuration error: the dotted path of the key and the reason.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ConfigError {
    /// Dotted path (`ap.qdisc.gamma`, `positions[2]`); empty for the table
    /// that reports it.
    pub path: String,
    pub reason: String,
}

impl ConfigError {
    pub fn new(path: impl Into<String>, reason: impl Into<String>) -> ConfigError {
        ConfigError { path: path.into(), reason: reason.into() }
    }

    /// The same error seen from the table holding this one at `parent`:
    /// `gamma` under `ap.qdisc` is `ap.qdisc.gamma`.
    pub fn under(self, parent: &str) -> ConfigError {
        let path = match (parent.is_empty(), self.path.is_empty()) {
            (true, _) => self.path,
            (false, true) => parent.to_string(),
            (false, false) if self.path.starts_with('[') => format!("{parent}{}", self.path),
            (false, false) => format!("{parent}.{}", self.path),
        };
        ConfigError { path, reason: self.reason }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.reason)
        } else {
            write!(f, "{}: {}", self.path, self.reason)
        }
    }
}

impl std::error::Error for ConfigError {}

impl From<ConfigError> for String {
    fn from(e: ConfigError) -> String {
        e.to_string()
    }
}

/// `Err(ConfigError)` at `path` unless `ok`.
pub fn check(ok: bool, path: &str, reason: &str) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError::new(path, reason))
    }
}

/// The scenario type of a field's Rust type.
pub trait KeyType {
    const TY: Ty;
}

macro_rules! key_types {
    ($($t:ty => $ty:ident),* $(,)?) => {
        $(impl KeyType for $t { const TY: Ty = Ty::$ty; })*
    };
}
key_types!(
    f64 => Float, f32 => Float,
    u8 => Int, u16 => Int, u32 => Int, u64 => Int, usize => Int, i32 => Int, i64 => Int,
    bool => Bool, String => Str,
);

/// An array of a key type: numbers, strings (named values), tables or
/// arrays of arrays (`Any`).
impl<T: KeyType> KeyType for Vec<T> {
    const TY: Ty = match T::TY {
        Ty::Float => Ty::Floats,
        Ty::Int => Ty::Ints,
        Ty::Str => Ty::Strs,
        Ty::Table => Ty::Tables,
        Ty::Floats | Ty::Ints => T::TY,
        _ => Ty::Any,
    };
}

/// A key whose value may take several shapes (a name or a list; see the
/// key's description).
impl KeyType for serde_json::Value {
    const TY: Ty = Ty::Any;
}

impl<T: KeyType> KeyType for Option<T> {
    const TY: Ty = T::TY;
}

/// A table whose key rows are derived from its declaration
/// ([`config_table!`]).
pub trait ConfigTable {
    /// The rows of the table's keys, paths relative to the table, `when`
    /// empty.
    fn keys() -> &'static [Key];
}

/// A kind whose table struct is known by its `kind` string: what
/// [`config_kinds!`]'s `visit` hands a visitor (e.g. to read a kind's table
/// again as its own struct, where serde's error names the key).
pub trait KindVisitor {
    type Out;
    fn visit<T: serde::de::DeserializeOwned + serde::Serialize + Default + ConfigTable>(self) -> Self::Out;
}

/// Whether every explicit default text of `T`'s rows that is JSON agrees
/// with `T::default()` serialised (derived texts agree by construction):
/// the error names the first key that does not.
pub fn explicit_defaults_agree<T: ConfigTable + serde::Serialize + Default>() -> Result<(), String> {
    let d = serde_json::to_value(T::default()).map_err(|e| e.to_string())?;
    for k in T::keys() {
        // (an unset optional key's default is applied where it is read)
        if d[k.path].is_null() {
            continue;
        }
        if let Ok(lit) = serde_json::from_str::<serde_json::Value>(k.default) {
            let same = match (lit.as_f64(), d[k.path].as_f64()) {
                (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * b.abs().max(1.0),
                _ => lit == d[k.path],
            };
            if !same {
                return Err(format!("{}: row default {} but the struct's is {}", k.path, k.default, d[k.path]));
            }
        }
    }
    Ok(())
}

#[doc(hidden)]
pub mod __private {
    pub use serde_json;
    pub use std::sync::OnceLock;

    use super::Key;

    /// The first line of a doc comment, without rustdoc's leading space.
    pub fn doc_line(s: &'static str) -> &'static str {
        s.strip_prefix(' ').unwrap_or(s)
    }

    /// JSON text of the field `name` of a serialised default, or a panic
    /// that says what the declaration lacks.
    pub fn default_text(table: &str, defaults: &serde_json::Value, name: &str) -> &'static str {
        match defaults.get(name) {
            Some(v) if !v.is_null() => Box::leak(v.to_string().into_boxed_str()),
            _ => panic!("{table}.{name}: the default serialises to nothing; give #[key(default = \"...\")]"),
        }
    }

    /// Rows of several kinds in one list: the tag row first, then each
    /// kind's rows in order; a row equal to an earlier one but for `when`
    /// is merged into it.
    pub fn merge(tag: Key, kinds: &[(&'static str, &'static [Key])]) -> Vec<Key> {
        let mut rows: Vec<(Key, Vec<&'static str>)> = vec![(tag, Vec::new())];
        for (kind, keys) in kinds {
            for key in keys.iter() {
                let same = |k: &Key| {
                    k.path == key.path
                        && k.ty == key.ty
                        && k.default == key.default
                        && k.range == key.range
                        && k.unit == key.unit
                        && k.doc == key.doc
                };
                match rows.iter_mut().skip(1).find(|(k, _)| same(k)) {
                    Some((_, when)) => when.push(kind),
                    None => rows.push((*key, vec![*kind])),
                }
            }
        }
        rows.into_iter()
            .map(|(k, when)| if when.is_empty() { k } else { Key { when: Box::leak(when.into_boxed_slice()), ..k } })
            .collect()
    }
}

/// Declares a configuration table: the struct (serde derives,
/// `#[serde(default)]`), its `Default` from the per-field default
/// expressions and its [`ConfigTable`] rows.
///
/// ```
/// wifitcp_core::config_table! {
///     /// A CoDel table.
///     #[serde(deny_unknown_fields)]
///     pub struct Codel {
///         /// CoDel target (RFC 8289).
///         #[key(range = wifitcp_core::schema::TIMER_MS, unit = "ms")]
///         pub target_ms: f64 = 5.0,
///         /// Packets of the ACK buffer.
///         ///
///         /// Further lines are rustdoc only.
///         #[key(unit = "packets", default = "the interface capacity")]
///         pub ack_capacity: Option<usize> = None,
///     }
/// }
/// use wifitcp_core::config::ConfigTable;
/// assert_eq!(Codel::default().target_ms, 5.0);
/// assert_eq!(Codel::keys()[0].default, "5.0");
/// assert_eq!(Codel::keys()[1].doc, "Packets of the ACK buffer.");
/// ```
///
/// Each field: its doc comment (the first line is the key's meaning),
/// optionally `#[key(range = .., unit = "..", default = "..")]` (each part
/// optional), optionally `#[serde(..)]` attributes, then
/// `name: Type = default expression`.
#[macro_export]
macro_rules! config_table {
    (
        $(#[$sattr:meta])*
        $svis:vis struct $name:ident { $($body:tt)* }
    ) => {
        $crate::config_table!(@munch [$(#[$sattr])*] [$svis] $name [] $($body)*);
    };
    // the fields of a group (config_group!), in place
    (@munch $a:tt $v:tt $n:ident [$($done:tt)*] use $group:ident; $($rest:tt)*) => {
        $group!(@fields $a $v $n [$($done)*] $($rest)*);
    };
    // every field read: the struct
    (@munch [$($sattr:tt)*] [$svis:vis] $name:ident [$([
        #[doc = $doc:literal]
        $(#[doc = $more:literal])*
        $(#[key($($part:ident = $value:expr),* $(,)?)])?
        $(#[serde($($fattr:tt)*)])*
        $fvis:vis $field:ident : $fty:ty = $default:expr
    ])*]) => {
        #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(default)]
        $($sattr)*
        $svis struct $name {
            $(
                #[doc = $doc]
                $(#[doc = $more])*
                $(#[serde($($fattr)*)])*
                $fvis $field: $fty,
            )*
        }

        impl ::core::default::Default for $name {
            fn default() -> Self {
                $name { $($field: $default,)* }
            }
        }

        impl $crate::config::ConfigTable for $name {
            fn keys() -> &'static [$crate::schema::Key] {
                use $crate::config::__private as p;
                static ROWS: p::OnceLock<Vec<$crate::schema::Key>> = p::OnceLock::new();
                ROWS.get_or_init(|| {
                    #[allow(unused_variables)]
                    let defaults = p::serde_json::to_value(<$name as ::core::default::Default>::default())
                        .expect("a table serialises");
                    #[allow(unused_mut)]
                    let mut rows = Vec::new();
                    $(
                        #[allow(unused_mut, unused_assignments)]
                        let mut range: Option<($crate::schema::B, $crate::schema::B)> = None;
                        #[allow(unused_mut, unused_assignments)]
                        let mut unit: &'static str = "";
                        #[allow(unused_mut, unused_assignments)]
                        let mut text: Option<&'static str> = None;
                        $($( $crate::__key_part!(range, unit, text; $part = $value); )*)?
                        let name = stringify!($field);
                        rows.push($crate::schema::Key {
                            path: name,
                            when: &[],
                            ty: <$fty as $crate::config::KeyType>::TY,
                            default: match text {
                                Some(t) => t,
                                None => p::default_text(stringify!($name), &defaults, name),
                            },
                            range,
                            unit,
                            doc: p::doc_line($doc),
                        });
                    )*
                    rows
                })
            }
        }
    };
    // one field
    (@munch $a:tt $v:tt $n:ident [$($done:tt)*]
        $(#[$($fa:tt)*])* $fvis:vis $field:ident : $fty:ty = $default:expr $(, $($rest:tt)*)?) => {
        $crate::config_table!(@munch $a $v $n [$($done)* [$(#[$($fa)*])* $fvis $field : $fty = $default]] $($($rest)*)?);
    };
}

/// Declares a group of fields that several tables hold in place:
/// `config_group! { macro name { fields } }`, then `use name;` among a
/// [`config_table!`]'s fields (the group macro in scope). The fields are
/// written as in [`config_table!`]; paths inside them resolve where the
/// group is used, so they are best written in full. A group keeps the
/// tables flat (serde's `flatten` would cost `deny_unknown_fields` and the
/// key paths of serde's errors), and its rows are the same in every table
/// that holds it.
#[macro_export]
macro_rules! config_group {
    ($(#[$gattr:meta])* macro $group:ident { $($fields:tt)* }) => {
        $crate::config_group!(@dollar ($) [$(#[$gattr])*] $group [] $($fields)*);
    };
    (@dollar ($d:tt) [$($gattr:tt)*] $group:ident [$($done:tt)*]) => {
        $($gattr)*
        #[allow(unused_macros)]
        macro_rules! $group {
            (@fields $d a:tt $d v:tt $d n:ident [$d ($d done:tt)*] $d ($d rest:tt)*) => {
                $crate::config_table!(@munch $d a $d v $d n [$d ($d done)* $($done)*] $d ($d rest)*);
            };
        }
        #[allow(unused_imports)]
        pub(crate) use $group;
    };
    (@dollar ($d:tt) $g:tt $group:ident [$($done:tt)*]
        $(#[$($fa:tt)*])* $fvis:vis $field:ident : $fty:ty = $default:expr $(, $($rest:tt)*)?) => {
        $crate::config_group!(@dollar ($d) $g $group [$($done)* [$(#[$($fa)*])* $fvis $field : $fty = $default]] $($($rest)*)?);
    };
}

/// Declares a kind enum: a table tagged by `tag` whose other keys are those
/// of the kind's table struct. Generates the enum (serde internally
/// tagged; the first kind is the `Default`), `KINDS`, `kind()`, `get()` (the
/// kind's table as `&dyn Trait`), `keys()` (the tag's row, then every
/// kind's rows merged) and `visit()`. `mod name` after a kind declares
/// the module of its file (the macro is then invoked in the crate root), so
/// that a new kind is its file plus its line here.
///
/// ```ignore
/// wifitcp_core::config_kinds! {
///     /// A queue discipline selected by `kind`.
///     pub enum QdiscConfig: tag "kind", doc "Queue discipline.", dyn QdiscKind {
///         /// FIFO.
///         "drop-tail" => DropTail(DropTailConfig),
///     }
/// }
/// ```
#[macro_export]
macro_rules! config_kinds {
    (
        $(#[$eattr:meta])*
        $evis:vis enum $name:ident : tag $tag:literal, dyn $tr:path {
            $(
                $(#[$vattr:meta])*
                $kind:literal => $variant:ident($table:ty) $(mod $module:ident)?
            ),+ $(,)?
        }
    ) => {
        $($(pub mod $module;)?)+

        #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(tag = $tag)]
        $(#[$eattr])*
        $evis enum $name {
            $(
                $(#[$vattr])*
                #[serde(rename = $kind)]
                $variant($table),
            )+
        }

        impl ::core::default::Default for $name {
            fn default() -> Self {
                $crate::__first_kind!($name; $($variant($table)),+)
            }
        }

        impl $name {
            /// Every kind string, in registration order.
            pub const KINDS: &'static [&'static str] = &[$($kind),+];

            /// The kind string of this configuration.
            pub fn kind(&self) -> &'static str {
                match self {
                    $($name::$variant(_) => $kind,)+
                }
            }

            /// This kind's table.
            pub fn get(&self) -> &dyn $tr {
                match self {
                    $($name::$variant(c) => c,)+
                }
            }

            /// Rows of the tagged table: the tag, then every kind's keys
            /// (`when` names the kinds a row belongs to).
            pub fn keys() -> &'static [$crate::schema::Key] {
                use $crate::config::__private as p;
                static ROWS: p::OnceLock<Vec<$crate::schema::Key>> = p::OnceLock::new();
                ROWS.get_or_init(|| {
                    let first = $name::KINDS[0];
                    let tag = $crate::schema::Key {
                        path: $tag,
                        when: &[],
                        ty: $crate::schema::Ty::Str,
                        default: Box::leak(format!("{first:?}").into_boxed_str()),
                        range: None,
                        unit: "",
                        doc: Box::leak(format!("{}.", $name::KINDS.join(", ")).into_boxed_str()),
                    };
                    p::merge(tag, &[$(($kind, <$table as $crate::config::ConfigTable>::keys())),+])
                })
            }

            /// `visitor` given the table struct of `kind`, or `None` for an
            /// unknown kind.
            pub fn visit<V: $crate::config::KindVisitor>(kind: &str, visitor: V) -> Option<V::Out> {
                match kind {
                    $($kind => Some(visitor.visit::<$table>()),)+
                    _ => None,
                }
            }
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __key_part {
    ($r:ident, $u:ident, $t:ident; range = $v:expr) => {
        $r = $v
    };
    ($r:ident, $u:ident, $t:ident; unit = $v:expr) => {
        $u = $v
    };
    ($r:ident, $u:ident, $t:ident; default = $v:expr) => {
        $t = Some($v)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __first_kind {
    ($name:ident; $variant:ident($table:ty) $(, $rest:ident($rt:ty))*) => {
        $name::$variant(<$table as ::core::default::Default>::default())
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{B, PKTS, PROB};

    #[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "kebab-case")]
    enum Mode {
        Off,
        On,
    }
    impl KeyType for Mode {
        const TY: Ty = Ty::Str;
    }

    config_table! {
        /// A test table.
        #[serde(deny_unknown_fields)]
        struct Sample {
            /// Weight.
            #[key(range = PROB)]
            alpha: f64 = 0.8,
            /// Size.
            ///
            /// Rustdoc only.
            #[key(range = PKTS, unit = "packets", default = "the interface capacity")]
            size: Option<usize> = None,
            /// Thresholds.
            c: Vec<u32> = vec![2, 6, 12],
            /// Mode.
            mode: Mode = Mode::Off,
            /// Name.
            #[key(unit = "chars")]
            name: String = "x".into(),
            /// Limit.
            limit: u64 = 32 << 20,
        }
    }

    config_table! {
        /// Another.
        #[serde(deny_unknown_fields)]
        struct Other {
            /// Weight.
            #[key(range = PROB)]
            alpha: f64 = 0.8,
            /// Flag.
            #[key(default = "on")]
            flag: Option<bool> = None,
        }
    }

    config_group! {
        /// Two keys several tables hold.
        macro shared_keys {
            /// Target.
            #[key(range = PROB, unit = "ms")]
            target: f64 = 0.25,
            /// Names.
            names: Vec<String> = Vec::new(),
        }
    }

    config_table! {
        /// A table holding the group between its own keys.
        #[serde(deny_unknown_fields)]
        struct Holder {
            /// First.
            first: u32 = 1,
            use shared_keys;
            /// Last.
            last: bool = true,
        }
    }

    config_table! {
        /// The group alone.
        #[serde(deny_unknown_fields)]
        struct Alone {
            use shared_keys;
        }
    }

    #[test]
    fn a_group_is_held_in_place_with_the_same_rows() {
        let h = Holder::default();
        assert_eq!((h.first, h.target, h.last), (1, 0.25, true));
        let j = serde_json::to_string(&h).unwrap();
        assert_eq!(j, r#"{"first":1,"target":0.25,"names":[],"last":true}"#);
        let paths: Vec<&str> = Holder::keys().iter().map(|k| k.path).collect();
        assert_eq!(paths, ["first", "target", "names", "last"]);
        assert_eq!(format!("{:?}", &Holder::keys()[1..3]), format!("{:?}", Alone::keys()));
        assert_eq!(Alone::keys()[0].unit, "ms");
        let e = serde_json::from_str::<Holder>(r#"{"targt": 1}"#).unwrap_err().to_string();
        assert!(e.contains("targt"), "{e}");
    }

    trait Named {
        fn name(&self) -> &'static str;
    }
    impl Named for Sample {
        fn name(&self) -> &'static str {
            "sample"
        }
    }
    impl Named for Other {
        fn name(&self) -> &'static str {
            "other"
        }
    }

    config_kinds! {
        /// Kinds.
        enum Kinds: tag "kind", dyn Named {
            /// The first.
            "first" => First(Sample),
            "second" => Second(Other),
        }
    }

    #[test]
    fn rows_come_from_the_declaration() {
        let k = Sample::keys();
        let paths: Vec<&str> = k.iter().map(|k| k.path).collect();
        assert_eq!(paths, ["alpha", "size", "c", "mode", "name", "limit"]);
        let tys: Vec<Ty> = k.iter().map(|k| k.ty).collect();
        assert_eq!(tys, [Ty::Float, Ty::Int, Ty::Ints, Ty::Str, Ty::Str, Ty::Int]);
        let defaults: Vec<&str> = k.iter().map(|k| k.default).collect();
        assert_eq!(defaults, ["0.8", "the interface capacity", "[2,6,12]", "\"off\"", "\"x\"", "33554432"]);
        assert_eq!(k[0].range, PROB);
        assert_eq!((k[1].range, k[1].unit), (PKTS, "packets"));
        assert_eq!((k[4].range, k[4].unit), (None, "chars"));
        assert_eq!(k[1].doc, "Size.");
        assert!(k.iter().all(|k| k.when.is_empty()));
    }

    config_table! {
        /// A table whose explicit default text disagrees with its default.
        struct Wrong {
            /// Weight.
            #[key(default = "0.5")]
            alpha: f64 = 0.8,
        }
    }

    /// Every row's literal default is the serialised `Default` (an explicit
    /// text that is JSON must agree with it too).
    #[test]
    fn row_defaults_are_the_serialised_default() {
        let d = serde_json::to_value(Sample::default()).unwrap();
        for k in Sample::keys() {
            if let Ok(lit) = serde_json::from_str::<serde_json::Value>(k.default) {
                assert_eq!(lit, d[k.path], "{}", k.path);
            }
        }
        explicit_defaults_agree::<Sample>().unwrap();
        explicit_defaults_agree::<Other>().unwrap();
        let e = explicit_defaults_agree::<Wrong>().unwrap_err();
        assert_eq!(e, "alpha: row default 0.5 but the struct's is 0.8");
    }

    #[test]
    fn the_struct_parses_with_defaults_and_rejects_unknown_keys() {
        let s: Sample = serde_json::from_str(r#"{"alpha": 0.5, "mode": "on"}"#).unwrap();
        assert_eq!((s.alpha, s.mode, s.c.clone()), (0.5, Mode::On, vec![2, 6, 12]));
        let e = serde_json::from_str::<Sample>(r#"{"alpah": 0.5}"#).unwrap_err().to_string();
        assert!(e.contains("alpah"), "{e}");
    }

    #[test]
    fn kinds_list_dispatch_and_merged_rows() {
        assert_eq!(Kinds::KINDS, ["first", "second"]);
        assert_eq!(Kinds::default(), Kinds::First(Sample::default()));
        let k: Kinds = serde_json::from_str(r#"{"kind": "second", "flag": true}"#).unwrap();
        assert_eq!((k.kind(), k.get().name()), ("second", "other"));
        assert!(serde_json::from_str::<Kinds>(r#"{"kind": "third"}"#).is_err());
        let rows = Kinds::keys();
        assert_eq!((rows[0].path, rows[0].default, rows[0].doc), ("kind", "\"first\"", "first, second."));
        let alpha: Vec<_> = rows.iter().filter(|k| k.path == "alpha").collect();
        assert_eq!(alpha.len(), 1);
        assert_eq!(alpha[0].when, ["first", "second"]);
        let flag = rows.iter().find(|k| k.path == "flag").unwrap();
        assert_eq!(flag.when, ["second"]);
        assert_eq!(rows.len(), 1 + 6 + 1);
        struct Count;
        impl KindVisitor for Count {
            type Out = usize;
            fn visit<T: serde::de::DeserializeOwned + serde::Serialize + Default + ConfigTable>(self) -> usize {
                T::keys().len()
            }
        }
        assert_eq!(Kinds::visit("second", Count), Some(2));
        assert_eq!(Kinds::visit("third", Count), None);
        let _ = B::In(0.0);
    }

    #[test]
    fn errors_name_their_path() {
        let e = ConfigError::new("gamma", "must be in [0, 1)");
        assert_eq!(e.to_string(), "gamma: must be in [0, 1)");
        assert_eq!(e.clone().under("ap.qdisc").to_string(), "ap.qdisc.gamma: must be in [0, 1)");
        assert_eq!(ConfigError::new("[2]", "bad").under("positions").path, "positions[2]");
        assert_eq!(ConfigError::new("", "bad").under("ap.proxy").to_string(), "ap.proxy: bad");
        assert_eq!(e.under("").path, "gamma");
        assert!(check(true, "x", "y").is_ok());
        assert_eq!(String::from(check(false, "x", "y").unwrap_err()), "x: y");
    }
}
