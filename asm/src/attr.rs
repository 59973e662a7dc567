//! Attribute values.

use crate::ty::TypeId;

/// An attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    /// A unit attribute (`{pto.entry}`), or the `unit` keyword.
    Unit,
    /// `true` / `false`.
    Bool(bool),
    /// Integer literal with its optional type (`7 : i32`). A hex literal with a
    /// float type is a bit pattern (`0x3F800000 : f32`).
    Int {
        /// Value (wide enough for u64 and i64).
        value: i128,
        /// Whether it was written in hex.
        hex: bool,
        /// Type, if written.
        ty: Option<TypeId>,
    },
    /// Float literal (exact f64 value) with optional type.
    Float {
        /// Bit pattern of the f64 value.
        bits: u64,
        /// Type, if written.
        ty: Option<TypeId>,
    },
    /// `"string"` (unescaped).
    Str(String),
    /// A type used as an attribute.
    Type(TypeId),
    /// `@symbol`.
    Symbol(String),
    /// `[a, b, ...]`.
    Array(Vec<Attr>),
    /// `{k = v, ...}` (nested dictionary).
    Dict(Vec<(String, Attr)>),
    /// `#ns<body>`, `#alias`, or a stripped `<body>` (empty `ns`).
    Dialect {
        /// Namespace without `#` (`pto.pipe`, `pto`); empty for stripped `<X>`.
        ns: String,
        /// Normalized text between the angle brackets, if any.
        body: Option<String>,
    },
    /// `dense<...>`, `array<...>`, `affine_map<...>`, `strided<...>`... with
    /// normalized body text.
    Keyword {
        /// The keyword.
        kw: String,
        /// Normalized text between the angle brackets.
        body: String,
    },
}

impl Eq for Attr {}

impl Attr {
    /// The enum value of `#pto.kind<VALUE>`, `<VALUE>`, `"VALUE"` or a bare identifier
    /// attribute (used for pipes, events, modes...).
    pub fn enum_value(&self) -> Option<&str> {
        match self {
            Attr::Dialect { body: Some(b), .. } => {
                let b = b.trim();
                let v = b.rsplit(' ').next().unwrap_or(b);
                Some(v)
            }
            Attr::Str(s) => Some(s.as_str()),
            _ => None,
        }
    }

    /// Integer value, if the attribute is an integer literal.
    pub fn as_int(&self) -> Option<i128> {
        match self {
            Attr::Int { value, .. } => Some(*value),
            Attr::Bool(b) => Some(*b as i128),
            _ => None,
        }
    }

    /// String value, if a string literal.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Attr::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// Looks up a key in an attribute dictionary.
pub fn dict_get<'a>(d: &'a [(String, Attr)], key: &str) -> Option<&'a Attr> {
    d.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}
