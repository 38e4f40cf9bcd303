//! The `params` object of a request or notification, read in one pass with the members a
//! `tools/call` needs already taken out.
//!
//! The envelope is read before its method is known (members come in any order), so every
//! `params` object takes this one shape. `name`, `arguments`, `_meta`, `requestState` and
//! `inputResponses` land in fields of their own; any other member goes, in order, into a map
//! made only when there is one. `_meta` is read the same way into [`MetaFields`], kept in the
//! same allocation: its members a 2026-07-28 request declares itself with, and a map of the
//! others. A `tools/call` then builds no map for
//! `params` or `_meta` (with serde_json's `preserve_order`, an `IndexMap` hashing every key with
//! SipHash): only its declared capabilities are. In a short message its `arguments` are kept as
//! the client's text, checked but not built: a generated tool reads each argument from that text
//! into its own type (see [`ArgumentsAs`]). Methods that want the whole object get it back through [`Params::into_object`].

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::protocol::jsonrpc::ErrorObject;
use crate::protocol::{JsonObject, ProtocolVersion};

/// `io.modelcontextprotocol/protocolVersion`: the revision a 2026-07-28 request speaks.
pub(crate) const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `io.modelcontextprotocol/clientCapabilities`: what a 2026-07-28 client can answer.
pub(crate) const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `io.modelcontextprotocol/logLevel`: the log messages a 2026-07-28 request wants.
pub(crate) const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// A `params` object.
///
/// As with a map, a member given twice keeps its last value; `null` members are kept as
/// `null` (what they mean is each method's business).
#[derive(Debug, Clone, Default)]
pub(crate) struct Params {
    /// `name`.
    pub(crate) name: Option<Name>,
    /// `arguments`: as the client wrote it (well-formed JSON, not yet built: see
    /// [`Params::into_object`] for what building it may still refuse), or built, as the
    /// decoder chose ([`ArgumentsAs`]).
    pub(crate) arguments: Option<Arguments>,
    /// `_meta`.
    pub(crate) meta: Option<Meta>,
    /// `requestState` (2026-07-28 retries).
    pub(crate) request_state: Option<Value>,
    /// `inputResponses` (2026-07-28 retries).
    pub(crate) input_responses: Option<Value>,
    /// Every other member, in order; `None` when there is none.
    pub(crate) rest: Option<JsonObject>,
}

/// A `params.arguments` member.
#[derive(Debug, Clone)]
pub(crate) enum Arguments {
    /// As the client wrote it.
    Text(Box<RawValue>),
    /// Built.
    Value(Value),
}

/// A `params.name` member: a string as short as a tool's or a prompt's name is kept in place,
/// read on every call without an allocation; anything else as a value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Name {
    /// A string of at most [`ShortName::CAPACITY`] bytes.
    Short(ShortName),
    /// Any other value (a longer string, or a member of the wrong type).
    Value(Value),
}

/// A string of at most [`ShortName::CAPACITY`] bytes, in place.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct ShortName {
    len: u8,
    bytes: [u8; ShortName::CAPACITY],
}

impl ShortName {
    /// As many bytes as leave a [`Name`] no larger than a [`Value`].
    pub(crate) const CAPACITY: usize = 46;

    fn new(text: &str) -> Option<Self> {
        let mut bytes = [0; Self::CAPACITY];
        bytes
            .get_mut(..text.len())?
            .copy_from_slice(text.as_bytes());
        Some(ShortName {
            len: text.len() as u8,
            bytes,
        })
    }

    fn as_str(&self) -> &str {
        let bytes = &self.bytes[..usize::from(self.len)];
        // SAFETY: `new` is the only way to make one, and it copies a whole `str` into the
        // first `len` bytes, which nothing changes after. Checking them again on each read
        // cost a call some 250 instructions, more than the allocation this saves.
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }
}

impl fmt::Debug for ShortName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Name {
    /// The name, when it is a string.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Name::Short(name) => Some(name.as_str()),
            Name::Value(value) => value.as_str(),
        }
    }

    /// As a value.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Name::Short(name) => Value::String(name.as_str().to_owned()),
            Name::Value(value) => value,
        }
    }
}

impl From<Value> for Name {
    fn from(value: Value) -> Self {
        match value.as_str().and_then(ShortName::new) {
            Some(name) => Name::Short(name),
            None => Name::Value(value),
        }
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NameValueVisitor)
    }
}

/// Reads a string into a [`Name`] in place when it fits; anything else as serde_json reads a
/// [`Value`].
struct NameValueVisitor;

impl<'de> Visitor<'de> for NameValueVisitor {
    type Value = Name;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Name, E> {
        Ok(ShortName::new(text)
            .map_or_else(|| Name::Value(Value::String(text.to_owned())), Name::Short))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<Name, E> {
        Ok(ShortName::new(&text).map_or(Name::Value(Value::String(text)), Name::Short))
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Name, E> {
        Ok(Name::Value(Value::Bool(value)))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Name, E> {
        Ok(Name::Value(value.into()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Name, E> {
        Ok(Name::Value(value.into()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Name, E> {
        Ok(Name::Value(value.into()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Name, E> {
        Ok(Name::Value(Value::Null))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Name, A::Error> {
        Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Name::Value)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Name, A::Error> {
        Value::deserialize(de::value::MapAccessDeserializer::new(map)).map(Name::Value)
    }
}

/// How [`Params::from_map`] keeps `arguments`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArgumentsAs {
    /// As [`Arguments::Text`]: delimited, not built, one allocation whatever they hold.
    Text,
    /// As [`Arguments::Value`].
    Value,
}

impl Arguments {
    /// Whether it is an object (text is well-formed JSON: its first byte tells).
    pub(crate) fn is_object(&self) -> bool {
        match self {
            Arguments::Text(text) => text.get().starts_with('{'),
            Arguments::Value(value) => value.is_object(),
        }
    }

    /// Whether it is `null`.
    pub(crate) fn is_null(&self) -> bool {
        match self {
            Arguments::Text(text) => text.get() == "null",
            Arguments::Value(value) => value.is_null(),
        }
    }

    /// Built; invalid params when serde_json cannot hold the text as a value (a number out
    /// of `f64`'s range, nesting deeper than 128).
    pub(crate) fn into_value(self) -> Result<Value, ErrorObject> {
        match self {
            Arguments::Text(text) => serde_json::from_str(text.get()).map_err(|error| {
                ErrorObject::invalid_params(format!("`arguments` cannot be read: {error}"))
            }),
            Arguments::Value(value) => Ok(value),
        }
    }
}

impl PartialEq for Meta {
    fn eq(&self, other: &Self) -> bool {
        // `RawValue` has no equality of its own: the capabilities are compared as values.
        let value = |meta: &Meta| meta.clone().into_value().ok();
        value(self) == value(other)
    }
}

impl PartialEq for Params {
    fn eq(&self, other: &Self) -> bool {
        // `RawValue` has no equality of its own: arguments are compared as values here.
        let value = |params: &Params| params.arguments.clone().map(Arguments::into_value);
        self.name == other.name
            && value(self) == value(other)
            && self.meta == other.meta
            && self.request_state == other.request_state
            && self.input_responses == other.input_responses
            && self.rest == other.rest
    }
}

/// A `_meta` member.
// Large on purpose: it lives in the box of its `params` (see `Object`).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub(crate) enum Meta {
    /// An object. In place rather than boxed: a 2026-07-28 request always has one, and a box
    /// of its own cost an allocation per request.
    Object(MetaFields),
    /// Anything else. Every reader takes a `_meta` that is no object for an absent one, so
    /// only that it was there is kept (given back as `null`).
    Other,
}

/// The members of a `_meta` object.
#[derive(Debug, Clone, Default)]
pub(crate) struct MetaFields {
    /// [`PROTOCOL_VERSION`].
    pub(crate) protocol_version: Option<Revision>,
    /// [`CLIENT_CAPABILITIES`], as the client wrote it (well-formed JSON, not yet built): most
    /// requests read a key or two of it, if anything, and building the object (a map per
    /// level, every key hashed) cost more than the rest of decoding a 2026-07-28 call.
    pub(crate) client_capabilities: Option<Declared>,
    /// [`LOG_LEVEL`].
    pub(crate) log_level: Option<Value>,
    /// `progressToken`.
    pub(crate) progress_token: Option<Value>,
    /// Every other member, in order; `None` when there is none.
    pub(crate) rest: Option<JsonObject>,
}

/// `_meta`'s protocol version: one this runtime knows, kept without a copy, or whatever else the
/// client wrote (a revision it does not know, or no string at all).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Revision {
    /// Written as plain as its name.
    Known(ProtocolVersion),
    /// Anything else.
    Other(Value),
}

impl Revision {
    /// The version, when it is a string.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Revision::Known(version) => Some(version.as_str()),
            Revision::Other(value) => value.as_str(),
        }
    }

    fn into_value(self) -> Value {
        match self {
            Revision::Known(version) => Value::String(version.as_str().to_owned()),
            Revision::Other(value) => value,
        }
    }

    /// The member as the client wrote it: a known version is recognised in the text, anything
    /// else is built.
    fn of_written(written: &RawValue) -> serde_json::Result<Self> {
        let text = written.get();
        let known = text
            .strip_prefix('"')
            .and_then(|text| text.strip_suffix('"'))
            .and_then(|name| name.parse::<ProtocolVersion>().ok());
        match known {
            Some(version) => Ok(Revision::Known(version)),
            None => serde_json::from_str(text).map(Revision::Other),
        }
    }
}

/// The client's capabilities as `_meta` declares them, kept as the client wrote them. The usual
/// empty object is kept without a copy.
#[derive(Debug, Clone)]
pub(crate) enum Declared {
    /// Exactly `{}`.
    Nothing,
    /// Anything else, as written.
    Written(Box<RawValue>),
}

impl Declared {
    fn of(written: &RawValue) -> Self {
        if written.get() == "{}" {
            Declared::Nothing
        } else {
            Declared::Written(written.to_owned())
        }
    }

    /// The text as written.
    pub(crate) fn get(&self) -> &str {
        match self {
            Declared::Nothing => "{}",
            Declared::Written(text) => text.get(),
        }
    }
}

/// The members of `params` with a field of their own, in the order [`Params::into_object`]
/// puts them.
const FIELDS: [&str; 5] = [
    "name",
    "arguments",
    "_meta",
    "requestState",
    "inputResponses",
];

/// The members of `_meta` with a field of their own, in the order
/// [`MetaFields::into_object`] puts them.
const META_FIELDS: [&str; 4] = [
    PROTOCOL_VERSION,
    CLIENT_CAPABILITIES,
    LOG_LEVEL,
    "progressToken",
];

impl Params {
    /// Member `key` when present and not `null`: its text, or `Some(None)` when it is no
    /// string.
    #[cfg(any(feature = "http", test))]
    pub(crate) fn get_str(&self, key: &str) -> Option<Option<&str>> {
        let value = match Key::known(key) {
            Some(Key::Name) => match self.name.as_ref()? {
                Name::Short(name) => return Some(Some(name.as_str())),
                Name::Value(value) => value,
            },
            _ => self.get(key)?,
        };
        (!value.is_null()).then(|| value.as_str())
    }

    /// The member `key`, as a map would give it; `_meta` is read through [`Params::meta`],
    /// `arguments` and `name` through their fields (never here).
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        debug_assert_ne!(key, "name", "read through `get_str` or the field");
        match Key::known(key) {
            Some(Key::Meta) => None,
            Some(key) => self.slot(key).as_ref(),
            None => self.rest.as_ref()?.get(key),
        }
    }

    /// Read the members of a `params` object from `map`, boxed (a message is moved a few
    /// times on its way, and the members are written where they stay).
    pub(crate) fn from_map<'de, A: MapAccess<'de>>(
        mut map: A,
        arguments_as: ArgumentsAs,
    ) -> Result<Box<Self>, A::Error> {
        let mut params = Box::<Params>::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                // Read into its place: `MetaFields` returned by value would be copied on each
                // step out of the reader.
                Key::Meta => map.next_value_seed(MetaSeed(&mut params.meta))?,
                Key::Name => params.name = Some(map.next_value()?),
                Key::Arguments => {
                    params.arguments = Some(match arguments_as {
                        ArgumentsAs::Text => Arguments::Text(map.next_value()?),
                        ArgumentsAs::Value => Arguments::Value(map.next_value()?),
                    });
                }
                key => {
                    let value = map.next_value::<Value>()?;
                    params.set(key, value);
                }
            }
        }
        Ok(params)
    }

    /// `_meta`, when it is an object.
    pub(crate) fn meta(&self) -> Option<&MetaFields> {
        match self.meta.as_ref()? {
            Meta::Object(meta) => Some(meta),
            Meta::Other => None,
        }
    }

    /// `_meta`, when it is an object, to take members out of.
    pub(crate) fn meta_mut(&mut self) -> Option<&mut MetaFields> {
        match self.meta.as_mut()? {
            Meta::Object(meta) => Some(meta),
            Meta::Other => None,
        }
    }

    /// The whole object: the members with fields of their own first, then the others in
    /// order.
    ///
    /// Fails (invalid params) only when `arguments` holds well-formed JSON that serde_json
    /// cannot hold as a value: a number out of `f64`'s range, or nesting deeper than 128.
    pub(crate) fn into_object(self) -> Result<JsonObject, ErrorObject> {
        // A call per member rather than a loop: the loop is unrolled, an insertion a lot of
        // code each time, and no method needs this quickly.
        let mut object = JsonObject::new();
        let arguments = self.arguments.map(Arguments::into_value).transpose()?;
        put(&mut object, FIELDS[0], self.name.map(Name::into_value));
        put(&mut object, FIELDS[1], arguments);
        put(
            &mut object,
            FIELDS[2],
            self.meta.map(Meta::into_value).transpose()?,
        );
        put(&mut object, FIELDS[3], self.request_state);
        put(&mut object, FIELDS[4], self.input_responses);
        if let Some(rest) = self.rest {
            object.extend(rest);
        }
        Ok(object)
    }

    /// The field of a member that has one (`name`, `_meta` and `arguments` aside).
    fn slot(&self, key: Key) -> &Option<Value> {
        match key {
            Key::RequestState => &self.request_state,
            Key::InputResponses => &self.input_responses,
            Key::Name | Key::Arguments | Key::Meta | Key::Other(_) => &None,
        }
    }

    /// Keep `value` as member `key`, in place of any value before it; never `_meta` or
    /// `arguments`, which their readers keep themselves.
    fn set(&mut self, key: Key, value: Value) {
        let slot = match key {
            Key::Name => {
                self.name = Some(value.into());
                return;
            }
            Key::Arguments | Key::Meta => unreachable!("kept by their readers"),
            Key::RequestState => &mut self.request_state,
            Key::InputResponses => &mut self.input_responses,
            Key::Other(key) => {
                other(&mut self.rest, key, value);
                return;
            }
        };
        *slot = Some(value);
    }
}

impl MetaFields {
    /// The whole object: the members with fields of their own first, then the others in
    /// order.
    ///
    /// Fails (invalid params) only when the capabilities hold well-formed JSON that serde_json
    /// cannot hold as a value: a number out of `f64`'s range, or nesting deeper than 128.
    pub(crate) fn into_object(self) -> Result<JsonObject, ErrorObject> {
        let capabilities = self
            .client_capabilities
            .map(|text| serde_json::from_str(text.get()))
            .transpose()
            .map_err(|error| {
                ErrorObject::invalid_params(format!(
                    "`_meta[\"{CLIENT_CAPABILITIES}\"]` cannot be read: {error}"
                ))
            })?;
        let mut object = JsonObject::new();
        put(
            &mut object,
            META_FIELDS[0],
            self.protocol_version.map(Revision::into_value),
        );
        put(&mut object, META_FIELDS[1], capabilities);
        put(&mut object, META_FIELDS[2], self.log_level);
        put(&mut object, META_FIELDS[3], self.progress_token);
        if let Some(rest) = self.rest {
            object.extend(rest);
        }
        Ok(object)
    }

    fn set(&mut self, key: MetaKey, value: Value) {
        let slot = match key {
            MetaKey::ProtocolVersion => {
                self.protocol_version = Some(Revision::Other(value));
                return;
            }
            MetaKey::ClientCapabilities => unreachable!("kept by its reader"),
            MetaKey::LogLevel => &mut self.log_level,
            MetaKey::ProgressToken => &mut self.progress_token,
            MetaKey::Other(key) => {
                other(&mut self.rest, key, value);
                return;
            }
        };
        *slot = Some(value);
    }
}

/// Reads a `_meta` member into its slot: an object member by member, anything else (which
/// never fails, as with the envelope's members) as [`Meta::Other`]. A member given twice keeps
/// the last.
struct MetaSeed<'a>(&'a mut Option<Meta>);

impl<'de> de::DeserializeSeed<'de> for MetaSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl MetaSeed<'_> {
    fn other<E>(self) -> Result<(), E> {
        *self.0 = Some(Meta::Other);
        Ok(())
    }
}

impl<'de> Visitor<'de> for MetaSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let slot = self.0.insert(Meta::Object(MetaFields::default()));
        let Meta::Object(meta) = slot else {
            unreachable!("just written")
        };
        while let Some(key) = map.next_key::<MetaKey>()? {
            if let MetaKey::ProtocolVersion = key {
                // Borrowed from the message: a known version is not copied.
                let written = map.next_value::<&RawValue>()?;
                meta.protocol_version =
                    Some(Revision::of_written(written).map_err(de::Error::custom)?);
                continue;
            }
            if let MetaKey::ClientCapabilities = key {
                // Borrowed from the message: only capabilities other than `{}` are copied.
                meta.client_capabilities = Some(Declared::of(map.next_value::<&RawValue>()?));
                continue;
            }
            let value = map.next_value::<Value>()?;
            meta.set(key, value);
        }
        Ok(())
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        self.other()
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.other()
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.other()
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.other()
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.other()
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.other()
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.other()
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.other()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// Keep `value` as the member `key` of the map of members without a field, made with the
/// first.
fn other(rest: &mut Option<JsonObject>, key: String, value: Value) {
    rest.get_or_insert_with(JsonObject::new).insert(key, value);
}

/// `object[key] = value`, when there is a value.
#[inline(never)]
fn put(object: &mut JsonObject, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        object.insert(key.to_owned(), value);
    }
}

impl Meta {
    /// The member's value (`null` for one that was no object).
    fn into_value(self) -> Result<Value, ErrorObject> {
        Ok(match self {
            Meta::Object(meta) => Value::Object(meta.into_object()?),
            Meta::Other => Value::Null,
        })
    }
}

#[cfg(test)]
impl From<JsonObject> for Params {
    fn from(object: JsonObject) -> Self {
        let mut params = Params::default();
        for (key, value) in object {
            match Key::of(key) {
                Key::Meta => {
                    params.meta = Some(match value {
                        Value::Object(object) => {
                            let mut meta = MetaFields::default();
                            for (key, value) in object {
                                match MetaKey::of(key) {
                                    MetaKey::ClientCapabilities => {
                                        meta.client_capabilities = Some(Declared::of(
                                            &serde_json::value::to_raw_value(&value).unwrap(),
                                        ));
                                    }
                                    key => meta.set(key, value),
                                }
                            }
                            Meta::Object(meta)
                        }
                        _ => Meta::Other,
                    });
                }
                Key::Arguments => params.arguments = Some(Arguments::Value(value)),
                key => params.set(key, value),
            }
        }
        params
    }
}

/// A member's name in `params`: one of [`FIELDS`] (read without allocating), or any other.
enum Key {
    Name,
    Arguments,
    Meta,
    RequestState,
    InputResponses,
    Other(String),
}

impl MemberName for Key {
    fn known(key: &str) -> Option<Self> {
        Some(match key {
            "name" => Key::Name,
            "arguments" => Key::Arguments,
            "_meta" => Key::Meta,
            "requestState" => Key::RequestState,
            "inputResponses" => Key::InputResponses,
            _ => return None,
        })
    }

    fn other(key: String) -> Self {
        Key::Other(key)
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(NameVisitor(std::marker::PhantomData))
    }
}

/// A member's name in `_meta`: one of [`META_FIELDS`] (read without allocating), or any other.
enum MetaKey {
    ProtocolVersion,
    ClientCapabilities,
    LogLevel,
    ProgressToken,
    Other(String),
}

impl MemberName for MetaKey {
    fn known(key: &str) -> Option<Self> {
        Some(match key {
            PROTOCOL_VERSION => MetaKey::ProtocolVersion,
            CLIENT_CAPABILITIES => MetaKey::ClientCapabilities,
            LOG_LEVEL => MetaKey::LogLevel,
            "progressToken" => MetaKey::ProgressToken,
            _ => return None,
        })
    }

    fn other(key: String) -> Self {
        MetaKey::Other(key)
    }
}

impl<'de> Deserialize<'de> for MetaKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(NameVisitor(std::marker::PhantomData))
    }
}

/// The names of the members one level of `params` keeps fields for ([`Key`], [`MetaKey`]).
trait MemberName: Sized {
    /// The name, when it has a field.
    fn known(key: &str) -> Option<Self>;

    /// Any other name.
    fn other(key: String) -> Self;

    #[cfg(test)]
    fn of(key: String) -> Self {
        Self::known(&key).unwrap_or_else(|| Self::other(key))
    }
}

/// Reads a member's name as `K`, allocating only for one without a field.
struct NameVisitor<K>(std::marker::PhantomData<K>);

impl<K: MemberName> Visitor<'_> for NameVisitor<K> {
    type Value = K;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<K, E> {
        Ok(K::known(key).unwrap_or_else(|| K::other(key.to_owned())))
    }

    fn visit_string<E: de::Error>(self, key: String) -> Result<K, E> {
        Ok(K::known(&key).unwrap_or_else(|| K::other(key)))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(text: &str) -> Params {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = Params;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Params, A::Error> {
                Params::from_map(map, ArgumentsAs::Text).map(|params| *params)
            }
        }
        let mut deserializer = serde_json::Deserializer::from_str(text);
        deserializer.deserialize_map(Object).unwrap()
    }

    #[test]
    fn names_that_fit_stay_in_place_and_any_other_is_a_value() {
        let fits = "n".repeat(ShortName::CAPACITY);
        let too_long = "n".repeat(ShortName::CAPACITY + 1);
        for (text, in_place) in [
            (fits.as_str(), true),
            (too_long.as_str(), false),
            ("météo☃", true),
            ("a\"b\\c\n", true),
            ("", true),
        ] {
            let params = read(&json!({ "name": text }).to_string());
            let name = params.name.clone().expect("a name");
            assert_eq!(matches!(name, Name::Short(_)), in_place, "{text:?}");
            assert_eq!(name.as_str(), Some(text));
            assert_eq!(params.get_str("name"), Some(Some(text)));
            assert_eq!(params.into_object().unwrap()["name"], json!(text));
        }
        for value in [
            json!(7),
            json!(-1),
            json!(1.5),
            json!(true),
            json!(["x"]),
            json!({"a": [1]}),
        ] {
            let params = read(&json!({ "name": value }).to_string());
            assert_eq!(params.name, Some(Name::Value(value.clone())));
            assert_eq!(params.get_str("name"), Some(None));
            assert_eq!(params.into_object().unwrap()["name"], value);
        }
        let null = read(r#"{"name":null}"#);
        assert_eq!(null.name, Some(Name::Value(Value::Null)));
        assert_eq!(null.get_str("name"), None);
        assert!(size_of::<Name>() <= size_of::<Value>());
    }

    /// The text of `params.arguments`, kept as text.
    fn text_of(params: &Params) -> Option<&str> {
        match params.arguments.as_ref()? {
            Arguments::Text(text) => Some(text.get()),
            Arguments::Value(value) => panic!("built: {value}"),
        }
    }

    #[test]
    fn the_call_members_get_fields_and_the_others_keep_their_order() {
        let params = read(
            r#"{"z":1,"name":"add","arguments":{"a":2},"_meta":{"k":true},"a":null,
                "requestState":"s","inputResponses":{}}"#,
        );
        assert_eq!(params.name, Some(json!("add").into()));
        assert_eq!(text_of(&params), Some(r#"{"a":2}"#));
        assert_eq!(params.get("arguments"), None);
        assert_eq!(
            params.meta.clone().map(|meta| meta.into_value().unwrap()),
            Some(json!({"k": true}))
        );
        assert_eq!(params.request_state, Some(json!("s")));
        assert_eq!(params.input_responses, Some(json!({})));
        let rest = params.rest.as_ref().unwrap();
        assert_eq!(rest.keys().collect::<Vec<_>>(), ["z", "a"]);
        assert_eq!(params.get("a"), Some(&Value::Null));
        assert_eq!(params.get_str("name"), Some(Some("add")));
        assert_eq!(params.get("missing"), None);
        assert_eq!(
            Value::Object(params.clone().into_object().unwrap()),
            json!({"z": 1, "name": "add", "arguments": {"a": 2}, "_meta": {"k": true},
                   "a": null, "requestState": "s", "inputResponses": {}})
        );
        assert_eq!(Params::from(params.clone().into_object().unwrap()), params);
    }

    #[test]
    fn a_repeated_member_keeps_its_last_value_like_a_map() {
        let params = read(r#"{"name":"a","x":1,"name":"b","x":2,"_me\u0074a":3}"#);
        assert_eq!(params.name, Some(json!("b").into()));
        assert_eq!(params.get("x"), Some(&json!(2)));
        assert_eq!(params.meta, Some(Meta::Other));
        assert!(params.meta().is_none());
    }

    #[test]
    fn capabilities_serde_json_cannot_hold_fail_only_when_the_object_is_built() {
        let params = read(
            r#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"n":1e400}}}}"#,
        );
        let kept = params.meta().unwrap().client_capabilities.as_ref().unwrap();
        assert_eq!(kept.get(), r#"{"roots":{"n":1e400}}"#);
        let refused = params.into_object().unwrap_err();
        assert_eq!(refused.code, ErrorObject::INVALID_PARAMS);
        assert!(
            refused.message.starts_with(
                "`_meta[\"io.modelcontextprotocol/clientCapabilities\"]` cannot be read: number out of range"
            ),
            "{}",
            refused.message
        );
    }

    #[test]
    fn meta_members_get_fields_and_the_others_keep_their_order() {
        let params = read(
            r#"{"_meta":{"z":[1],"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                "progressToken":1,"io.modelcontextprotocol/clientCapabilities":{"x":{}},
                "name":2,"io.modelcontextprotocol/logLevel":"info","progressToken":"t"},
                "progressToken":3}"#,
        );
        let meta = params.meta().unwrap();
        assert_eq!(
            meta.protocol_version,
            Some(Revision::Known(ProtocolVersion::V2026_07_28))
        );
        assert_eq!(
            meta.client_capabilities.as_ref().unwrap().get(),
            r#"{"x":{}}"#
        );
        assert_eq!(meta.log_level, Some(json!("info")));
        assert_eq!(meta.progress_token, Some(json!("t")));
        let rest = meta.rest.as_ref().unwrap();
        assert_eq!(rest.keys().collect::<Vec<_>>(), ["z", "name"]);
        assert_eq!(rest.get("name"), Some(&json!(2)));
        assert_eq!(params.get("progressToken"), Some(&json!(3)));
        let whole = Value::Object(params.clone().into_object().unwrap());
        assert_eq!(
            whole,
            json!({"_meta": {"z": [1], "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"x": {}}, "name": 2,
                "io.modelcontextprotocol/logLevel": "info", "progressToken": "t"},
                "progressToken": 3})
        );
        let Value::Object(whole) = whole else {
            unreachable!()
        };
        assert_eq!(Params::from(whole), params);
    }

    #[test]
    fn a_meta_that_is_no_object_reads_as_none() {
        for meta in [
            json!(null),
            json!(true),
            json!(-1),
            json!(1.5),
            json!("s"),
            json!([1, {"a": null}]),
        ] {
            let params = read(&json!({ "_meta": meta, "name": "n" }).to_string());
            assert_eq!(params.meta, Some(Meta::Other));
            assert!(params.meta().is_none());
            assert_eq!(params.name, Some(json!("n").into()));
            assert_eq!(
                Value::Object(params.into_object().unwrap()),
                json!({ "name": "n", "_meta": null })
            );
        }
        let mut from = Params::from(json!({"_meta": 1}).as_object().unwrap().clone());
        assert_eq!(from.meta, Some(Meta::Other));
        assert!(from.meta_mut().is_none());
    }

    #[test]
    fn an_object_of_other_members_only_makes_no_fields() {
        let params = read(r#"{"protocolVersion":"2025-11-25"}"#);
        assert_eq!(params.name, None);
        assert_eq!(params.get("protocolVersion"), Some(&json!("2025-11-25")));
        assert_eq!(read("{}"), Params::default());
        assert!(read("{}").into_object().unwrap().is_empty());
    }

    #[test]
    fn arguments_are_kept_as_written_and_built_only_when_asked() {
        let params = read(r#"{"arguments": {"b" : [1e400, "\u0041"]}, "name": "t"}"#);
        // Well-formed, so the decoder takes it; serde_json cannot hold `1e400` as a value.
        assert!(matches!(&params.arguments,
            Some(Arguments::Text(text)) if text.get() == r#"{"b" : [1e400, "\u0041"]}"#));
        let error = params.into_object().unwrap_err();
        assert_eq!(error.code, ErrorObject::INVALID_PARAMS);
        assert!(
            error.message.contains("`arguments` cannot be read"),
            "{}",
            error.message
        );
        let deep = format!("{{\"arguments\":{}{}}}", "[".repeat(200), "]".repeat(200));
        assert!(read(&deep).into_object().is_err());
        let params = read(r#"{"arguments":{"a":1},"arguments":null}"#);
        assert!(!params.arguments.as_ref().unwrap().is_object());
        assert!(matches!(&params.arguments, Some(Arguments::Text(text)) if text.get() == "null"));
        assert_eq!(
            Value::Object(params.into_object().unwrap()),
            json!({"arguments": null})
        );
    }
}
