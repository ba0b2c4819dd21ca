//! A flat scenario table read as two parts: the keys every kind reads (a
//! `config_table!` struct `C`) and a kind enum `K` (`config_kinds!`,
//! tagged by `tag`) holding the kind's own keys, written by the user as one
//! table (`[mac]` with `kind`, a `[[traffic]]` entry with `pattern`).
//! serde's `flatten` would lose `deny_unknown_fields` and the key paths of
//! errors; this reads the two parts apart instead.
//!
//! Invariants: each key goes to exactly one part (a key is the common
//! part's when `C` has a row for it); a missing tag is the default kind;
//! writing puts the two parts back into one table; an error is located by
//! reading each part again as its own struct ([`locate_error`]).
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use wifitcp_core::config::{ConfigTable, KindVisitor};

/// The kind enum of a flat table: its tag, its kinds (the first is the
/// default) and a way to read one kind's table again ([`Reread`]).
pub(crate) trait Kinds: Serialize + DeserializeOwned {
    const TAG: &'static str;
    fn kinds() -> &'static [&'static str];
    fn reread(kind: &str, table: Value) -> Option<(String, String)>;
}

/// `table` split into (the common keys, the tag and the kind's keys).
fn split<C: ConfigTable, K: Kinds>(mut table: Map<String, Value>) -> (Map<String, Value>, Value) {
    let mut common = Map::new();
    for k in C::keys() {
        if let Some(v) = table.remove(k.path) {
            common.insert(k.path.to_string(), v);
        }
    }
    if !table.contains_key(K::TAG) {
        table.insert(K::TAG.into(), Value::String(K::kinds()[0].into()));
    }
    (common, Value::Object(table))
}

/// Read a flat table; `required`: common keys that must be present.
pub(crate) fn deserialize<'de, D, C, K>(d: D, required: &[&'static str]) -> Result<(C, K), D::Error>
where
    D: serde::Deserializer<'de>,
    C: ConfigTable + DeserializeOwned,
    K: Kinds,
{
    let (common, kind) = split::<C, K>(Map::deserialize(d)?);
    if let Some(key) = required.iter().find(|k| !common.contains_key(**k)) {
        return Err(D::Error::missing_field(key));
    }
    let common = C::deserialize(Value::Object(common)).map_err(D::Error::custom)?;
    Ok((common, K::deserialize(kind).map_err(D::Error::custom)?))
}

/// Write the two parts as one table.
pub(crate) fn serialize<S: serde::Serializer>(
    common: &impl Serialize,
    kind: &impl Serialize,
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::Error;
    let mut out = match serde_json::to_value(common).map_err(S::Error::custom)? {
        Value::Object(m) => m,
        _ => return Err(S::Error::custom("the common keys are not a table")),
    };
    if let Value::Object(k) = serde_json::to_value(kind).map_err(S::Error::custom)? {
        out.extend(k);
    }
    out.serialize(s)
}

/// Where in the document's flat table `t` a deserialisation error lies:
/// (the key's path inside the table, the message).
pub(crate) fn locate_error<C, K>(t: &Value) -> Option<(String, String)>
where
    C: ConfigTable + DeserializeOwned + Serialize + Default,
    K: Kinds,
{
    let (common, mut kind) = split::<C, K>(t.as_object()?.clone());
    if let Some(e) = Reread(Value::Object(common)).visit::<C>() {
        return Some(e);
    }
    let name = kind.get(K::TAG).and_then(Value::as_str).map(str::to_string);
    match name {
        Some(name) if K::kinds().contains(&name.as_str()) => {
            kind.as_object_mut()?.remove(K::TAG);
            K::reread(&name, kind)
        }
        _ => Some((K::TAG.into(), K::deserialize(kind).err()?.to_string())),
    }
}

/// Reads a table again as its own struct: (the key's path inside it, the
/// message) of its error, if any.
pub(crate) struct Reread(pub Value);

impl KindVisitor for Reread {
    type Out = Option<(String, String)>;
    fn visit<T: DeserializeOwned + Serialize + Default + ConfigTable>(self) -> Self::Out {
        serde_path_to_error::deserialize::<_, T>(self.0)
            .err()
            .map(|e| (e.path().to_string(), e.into_inner().to_string()))
    }
}
