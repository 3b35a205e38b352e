//! JSON arguments read strictly: an object that names one key twice is an error naming the key,
//! where `serde_json` would silently keep the last value (`{"file_path": "a.py", "file_path":
//! "b.py"}` must not refactor b.py without a word).

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Why the text is not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StrictJsonError {
    /// Not JSON at all (serde_json's message, with line and column).
    #[error("{0}")]
    Syntax(String),
    /// An object names `key` twice.
    #[error("the key `{key}` appears twice in one object ({at})")]
    Duplicate { key: String, at: String },
}

const DUPLICATE: &str = "\u{0}duplicate key\u{0}";

/// Parses `text` like `serde_json::from_str::<Value>`, refusing an object with a repeated key.
pub fn parse(text: &str) -> Result<Value, StrictJsonError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Strict
        .deserialize(&mut deserializer)
        .and_then(|v| deserializer.end().map(|()| v))
        .map_err(|e| {
            let message = e.to_string();
            match message.strip_prefix(DUPLICATE) {
                Some(rest) => {
                    let (key, at) = rest.split_once(DUPLICATE).unwrap_or((rest, ""));
                    StrictJsonError::Duplicate {
                        key: key.to_string(),
                        at: at.trim().to_string(),
                    }
                }
                None => StrictJsonError::Syntax(message),
            }
        })?;
    Ok(value)
}

struct Strict;

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(Strict)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Strict)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                // serde_json appends " at line L column C" to this message.
                return Err(de::Error::custom(format!("{DUPLICATE}{key}{DUPLICATE}")));
            }
            let value = map.next_value_seed(Strict)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_key_is_named_and_everything_else_parses_as_serde_json_does() {
        for text in [
            r#"{"a": 1, "b": [1, 2.5, -3, {"c": null}], "d": "x\u00e9", "e": true}"#,
            "[]",
            "18446744073709551615",
            r#"{"a": {"a": 1}, "b": {"a": 2}}"#,
        ] {
            assert_eq!(
                parse(text).unwrap(),
                serde_json::from_str::<Value>(text).unwrap(),
                "{text}"
            );
        }
        let err =
            parse(r#"{"file_path": "a.py", "new_name": "x", "file_path": "b.py"}"#).unwrap_err();
        assert!(
            matches!(&err, StrictJsonError::Duplicate { key, .. } if key == "file_path"),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .starts_with("the key `file_path` appears twice in one object (at line 1 column"),
            "{err}"
        );
        let nested = parse(r#"{"new_parameters": [{"name": "a", "name": "b"}]}"#).unwrap_err();
        assert!(nested.to_string().contains("`name`"), "{nested}");
        assert!(matches!(parse("{oops"), Err(StrictJsonError::Syntax(_))));
        assert!(matches!(parse("{} {}"), Err(StrictJsonError::Syntax(_))));
    }
}
