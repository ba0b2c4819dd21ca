//! Configuration tables declared once: the error type of every config
//! layer, the table macro [`config_table!`], the kind-enum macro
//! [`config_kinds!`] and the named-choice macro [`config_choices!`].
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
//! - A named choice (a key naming one of several choices, each with its
//!   own table beside the key under its name: `cc = "vegas"` and
//!   `[tcp.vegas]`) lists each choice once: its name, variant and table
//!   struct. The names, the choice key's row and the mounted rows of every
//!   table (`vegas.alpha`) come from that list; a table is read only as its
//!   struct, so an unknown key or a wrong type is an error naming it.
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

/// `body` (a table) read as `T`. An error names the key it lies at
/// (serde_json names no key of a `Value`: each key is read alone to find
/// it); an unknown key is an error of the table (path empty), as serde's
/// "unknown field" lists the keys it expected.
pub fn read_table<T: serde::de::DeserializeOwned>(body: serde_json::Value) -> Result<T, ConfigError> {
    serde_json::from_value::<T>(body.clone()).map_err(|e| {
        let reason = e.to_string();
        let at = body.as_object().and_then(|m| {
            m.iter().find_map(|(k, v)| {
                let one = serde_json::Value::Object([(k.clone(), v.clone())].into_iter().collect());
                serde_json::from_value::<T>(one).err().map(|e| (k.clone(), e.to_string()))
            })
        });
        match at {
            Some((k, r)) if !r.starts_with("unknown field") => ConfigError::new(k, r),
            _ => ConfigError::new("", reason),
        }
    })
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

    /// The rows of a choice's table mounted under its name: the table's
    /// row (its meaning: the first line of the choice's doc comment), then
    /// its keys. Nothing for a choice without keys.
    pub fn mount_table(rows: &mut Vec<Key>, key: &str, choice: &'static str, docs: &[&'static str], keys: &[Key]) {
        if keys.is_empty() {
            return;
        }
        let what = docs.first().map_or("", |d| doc_line(d));
        rows.push(Key {
            path: choice,
            when: &[],
            ty: crate::schema::Ty::Table,
            default: "each key's default",
            range: None,
            unit: "",
            doc: Box::leak(format!("{what} Read when {key} = {choice:?}.").trim_start().to_string().into_boxed_str()),
        });
        for k in keys {
            rows.push(Key { path: Box::leak(format!("{choice}.{}", k.path).into_boxed_str()), ..*k });
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

/// `"a"`, `"a" or "b"`, `"a", "b" or "c"`: the quoted alternatives of a
/// row's meaning.
pub fn quoted_or(items: &[&str]) -> String {
    let q: Vec<String> = items.iter().map(|s| format!("{s:?}")).collect();
    match q.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => q.join(""),
    }
}

/// Declares a named choice: a key (`key "cc"`) whose string value names one
/// registered choice, each choice's parameters being the table of its
/// struct, written beside the key under the choice's name (`cc = "vegas"`
/// and `[tcp.vegas]`). Generates:
/// - the name enum (`names Ident`): serde by name (an unknown name is
///   serde's "unknown variant" error listing them all), the first is the
///   `Default`, `ALL`, `as_str()`, `has_table()` (whether the choice has
///   keys, so a table under its name);
/// - the choice enum holding the table of one choice: `Default` (the first,
///   its table's default), `name()`, `get()` (the table as `&dyn Trait`),
///   `read()` (a choice from the keys set in its table, the others at their
///   defaults; errors name the key under the choice's name, `vegas.beta`),
///   `set_keys()` (the keys set in a table, read and written back by the
///   struct, so that they are normalised), `defaults()` (a table with
///   every key), `keys()` (the choice key's row, listing the names, then
///   for every choice with keys its table's row and its keys' rows under
///   its name) and `visit()`.
///
/// `mod name` after a choice declares the module of its file (the macro
/// is then invoked in the module that holds the files), so that a new
/// choice is its file plus its line here. A choice's doc comment (first
/// line) is the meaning of its table's row. Several names may share a
/// table struct.
///
/// ```ignore
/// wifitcp_core::config_choices! {
///     /// The congestion controllers.
///     pub enum CcConfig: key "cc", names CcName, dyn CcKind {
///         /// TCP Vegas (Brakmo & Peterson 1995).
///         "vegas" => Vegas(vegas::VegasTable) mod vegas,
///     }
/// }
/// ```
#[macro_export]
macro_rules! config_choices {
    (
        $(#[$eattr:meta])*
        $evis:vis enum $name:ident : key $key:literal, names $names:ident, dyn $tr:path {
            $(
                $(#[doc = $vdoc:literal])*
                $choice:literal => $variant:ident($table:ty) $(mod $module:ident)?
            ),+ $(,)?
        }
    ) => {
        $($(pub mod $module;)?)+

        /// The registered names of [`
        #[doc = stringify!($name)]
        /// `], in registration order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, ::serde::Serialize, ::serde::Deserialize)]
        $evis enum $names {
            $(
                $(#[doc = $vdoc])*
                #[serde(rename = $choice)]
                $variant,
            )+
        }

        impl ::core::default::Default for $names {
            fn default() -> Self {
                $crate::__first_name!($names; $($variant),+)
            }
        }

        impl $crate::config::KeyType for $names {
            const TY: $crate::schema::Ty = $crate::schema::Ty::Str;
        }

        impl $names {
            /// Every name, in registration order.
            pub const ALL: &'static [&'static str] = &[$($choice),+];

            /// The name as written.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($names::$variant => $choice,)+
                }
            }

            /// The registered choice called `s`.
            pub fn parse(s: &str) -> Option<$names> {
                match s {
                    $($choice => Some($names::$variant),)+
                    _ => None,
                }
            }

            /// Whether the choice has keys (a table under its name).
            pub fn has_table(self) -> bool {
                match self {
                    $($names::$variant => !<$table as $crate::config::ConfigTable>::keys().is_empty(),)+
                }
            }
        }

        #[derive(Clone, Debug, PartialEq)]
        $(#[$eattr])*
        $evis enum $name {
            $(
                $(#[doc = $vdoc])*
                $variant($table),
            )+
        }

        impl ::core::default::Default for $name {
            fn default() -> Self {
                $crate::__first_kind!($name; $($variant($table)),+)
            }
        }

        impl $name {
            /// The name of this choice.
            pub fn name(&self) -> $names {
                match self {
                    $($name::$variant(_) => $names::$variant,)+
                }
            }

            /// This choice's table.
            pub fn get(&self) -> &dyn $tr {
                match self {
                    $($name::$variant(c) => c,)+
                }
            }

            /// The choice `name`, its table read from the keys set in
            /// `table` (the others at their defaults). Errors name the key
            /// under the choice's name (`vegas.beta`).
            pub fn read(
                name: $names,
                table: Option<&$crate::config::__private::serde_json::Map<String, $crate::config::__private::serde_json::Value>>,
            ) -> Result<$name, $crate::config::ConfigError> {
                use $crate::config::__private as p;
                let body = p::serde_json::Value::Object(table.cloned().unwrap_or_default());
                match name {
                    $($names::$variant => $crate::config::read_table::<$table>(body).map($name::$variant).map_err(|e| e.under($choice)),)+
                }
            }

            /// The keys set in `table` (of the choice `name`), each read and
            /// written back by the table's struct; errors as [`Self::read`].
            pub fn set_keys(
                name: $names,
                table: &$crate::config::__private::serde_json::Map<String, $crate::config::__private::serde_json::Value>,
            ) -> Result<$crate::config::__private::serde_json::Map<String, $crate::config::__private::serde_json::Value>, $crate::config::ConfigError> {
                let all = $name::read(name, Some(table))?.table_json();
                Ok(all.into_iter().filter(|(k, _)| table.contains_key(k)).collect())
            }

            /// The table of the choice `name` with every key at its default.
            pub fn defaults(name: $names) -> $crate::config::__private::serde_json::Map<String, $crate::config::__private::serde_json::Value> {
                $name::read(name, None).expect("a default table reads").table_json()
            }

            /// This choice's table as JSON.
            fn table_json(&self) -> $crate::config::__private::serde_json::Map<String, $crate::config::__private::serde_json::Value> {
                use $crate::config::__private as p;
                let v = match self {
                    $($name::$variant(c) => p::serde_json::to_value(c),)+
                };
                match v.expect("a table serialises") {
                    p::serde_json::Value::Object(m) => m,
                    _ => unreachable!("a table"),
                }
            }

            /// Rows: the choice key (its meaning lists the names; the
            /// default is the first), then, for every choice with keys, its
            /// table's row and its keys' rows under its name.
            pub fn keys() -> &'static [$crate::schema::Key] {
                use $crate::config::__private as p;
                static ROWS: p::OnceLock<Vec<$crate::schema::Key>> = p::OnceLock::new();
                ROWS.get_or_init(|| {
                    let names = $names::ALL;
                    let mut rows = vec![$crate::schema::Key {
                        path: $key,
                        when: &[],
                        ty: $crate::schema::Ty::Str,
                        default: Box::leak(format!("{:?}", names[0]).into_boxed_str()),
                        range: None,
                        unit: "",
                        doc: Box::leak(format!("{}.", $crate::config::quoted_or(names)).into_boxed_str()),
                    }];
                    $(
                        let docs: &[&'static str] = &[$($vdoc),*];
                        p::mount_table(&mut rows, $key, $choice, docs, <$table as $crate::config::ConfigTable>::keys());
                    )+
                    rows
                })
            }

            /// `visitor` given the table struct of the choice `name`, or
            /// `None` for an unknown name.
            pub fn visit<V: $crate::config::KindVisitor>(name: &str, visitor: V) -> Option<V::Out> {
                match name {
                    $($choice => Some(visitor.visit::<$table>()),)+
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
macro_rules! __first_name {
    ($name:ident; $variant:ident $(, $rest:ident)*) => {
        $name::$variant
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

    config_table! {
        /// No keys.
        #[serde(deny_unknown_fields)]
        struct Empty {}
    }
    impl Named for Empty {
        fn name(&self) -> &'static str {
            "empty"
        }
    }

    config_choices! {
        /// Choices.
        enum Choice: key "pick", names PickName, dyn Named {
            /// The first, without keys.
            "plain" => Plain(Empty),
            /// The same table under another name.
            "same" => Same(Empty),
            /// A table with keys.
            ///
            /// Rustdoc only.
            "other" => Other(Other),
        }
    }

    fn table(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn choices_names_and_defaults() {
        assert_eq!(PickName::ALL, ["plain", "same", "other"]);
        assert_eq!((PickName::default(), Choice::default()), (PickName::Plain, Choice::Plain(Empty {})));
        assert_eq!(PickName::parse("same").map(PickName::as_str), Some("same"));
        assert_eq!(PickName::parse("x"), None);
        assert!(PickName::Other.has_table() && !PickName::Same.has_table());
        assert_eq!(serde_json::from_str::<PickName>(r#""other""#).unwrap(), PickName::Other);
        let e = serde_json::from_str::<PickName>(r#""x""#).unwrap_err().to_string();
        assert!(e.starts_with("unknown variant `x`, expected one of `plain`, `same`, `other`"), "{e}");
        assert_eq!(serde_json::to_string(&PickName::Same).unwrap(), r#""same""#);
        assert_eq!(Choice::defaults(PickName::Other), table(serde_json::json!({"alpha": 0.8, "flag": null})));
        assert!(Choice::defaults(PickName::Plain).is_empty());
    }

    #[test]
    fn a_choice_reads_the_keys_set_in_its_table() {
        let c = Choice::read(PickName::Other, Some(&table(serde_json::json!({"flag": true})))).unwrap();
        assert_eq!(c, Choice::Other(Other { alpha: 0.8, flag: Some(true) }));
        assert_eq!((c.name(), c.get().name()), (PickName::Other, "other"));
        assert_eq!(Choice::read(PickName::Same, None).unwrap().name(), PickName::Same);
        let e =
            Choice::read(PickName::Other, Some(&table(serde_json::json!({"flag": true, "alpha": "x"})))).unwrap_err();
        assert_eq!(e.to_string(), "other.alpha: invalid type: string \"x\", expected f64");
        let e = Choice::read(PickName::Other, Some(&table(serde_json::json!({"alpah": 1})))).unwrap_err();
        assert_eq!(e.path, "other");
        assert!(e.reason.starts_with("unknown field `alpah`, expected `alpha` or `flag`"), "{e}");
        let e = Choice::read(PickName::Plain, Some(&table(serde_json::json!({"alpha": 1})))).unwrap_err();
        assert_eq!(e.path, "plain");
        let set = Choice::set_keys(PickName::Other, &table(serde_json::json!({"alpha": 1}))).unwrap();
        assert_eq!(set, table(serde_json::json!({"alpha": 1.0})));
    }

    #[test]
    fn choice_rows_are_the_key_then_each_table_under_its_name() {
        let rows = Choice::keys();
        let paths: Vec<&str> = rows.iter().map(|k| k.path).collect();
        assert_eq!(paths, ["pick", "other", "other.alpha", "other.flag"]);
        assert_eq!((rows[0].ty, rows[0].default), (Ty::Str, "\"plain\""));
        assert_eq!(rows[0].doc, "\"plain\", \"same\" or \"other\".");
        assert_eq!((rows[1].ty, rows[1].doc), (Ty::Table, "A table with keys. Read when pick = \"other\"."));
        assert_eq!((rows[2].range, rows[2].doc), (Other::keys()[0].range, "Weight."));
        assert!(rows.iter().all(|k| k.when.is_empty()));
        assert_eq!(quoted_or(&["a"]), "\"a\"");
        assert_eq!(quoted_or(&["a", "b"]), "\"a\" or \"b\"");
        struct Count;
        impl KindVisitor for Count {
            type Out = usize;
            fn visit<T: serde::de::DeserializeOwned + serde::Serialize + Default + ConfigTable>(self) -> usize {
                T::keys().len()
            }
        }
        assert_eq!(Choice::visit("other", Count), Some(2));
        assert_eq!(Choice::visit("x", Count), None);
    }

    #[test]
    fn read_table_names_the_key() {
        let e = read_table::<Sample>(serde_json::json!({"alpha": 0.5, "mode": "up"})).unwrap_err();
        assert_eq!(e.path, "mode");
        assert!(e.reason.starts_with("unknown variant `up`"), "{e}");
        let e = read_table::<Sample>(serde_json::json!({"nope": 1})).unwrap_err();
        assert_eq!(e.path, "");
        assert_eq!(read_table::<Sample>(serde_json::json!({})).unwrap(), Sample::default());
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
