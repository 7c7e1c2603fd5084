//! JSON Schema validation: the only module that touches the `jsonschema` crate. Schemas are
//! compiled once; every violation comes back as a `Violation` with a JSON pointer and an
//! "expected X, found Y" sentence a person can act on without reading the schema.

mod embedded;

pub use embedded::Embedded;

use crate::error::Violation;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

/// Deserializes a body its schema has accepted. JSON Schema counts `3.0` as an integer (a
/// number with no fractional part), serde's integer types do not: such numbers are written as
/// integers first, so `"max_results": 10.0` means 10 instead of failing after validation.
/// `what` names the request in the error, which can then only be a bug (schema and type
/// disagreeing), hence `Internal`.
pub fn deserialize_accepted<T: serde::de::DeserializeOwned>(
    body: &Value,
    what: &str,
) -> crate::error::Result<T> {
    let mut body = body.clone();
    integral_floats_as_integers(&mut body);
    serde_json::from_value(body).map_err(|e| {
        crate::error::Error::Internal(format!("{what} passed the schema but not serde: {e}"))
    })
}

/// Rewrites numbers such as `3.0` as integers, in place (JSON Schema's notion of integer).
pub(crate) fn integral_floats_as_integers(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            // Within +-2^53 every integer is exact in an f64, so the conversion is too.
            if f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0 {
                *v = Value::from(f as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_floats_as_integers),
        Value::Object(map) => map.values_mut().for_each(integral_floats_as_integers),
        _ => {}
    }
}

/// The catalog entry schema, embedded so the binary validates from any working directory.
pub const TOOL_SCHEMA: &str = Embedded::Tool.text();

/// A compiled schema.
pub struct Schema {
    validator: Validator,
}

impl std::fmt::Debug for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Schema")
    }
}

impl Schema {
    /// Compiles `schema` (draft 2020-12 unless it says otherwise), checking `format`s.
    /// The error is the reason the schema itself is unusable.
    pub fn compile(schema: &Value) -> Result<Schema, String> {
        jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .map(|validator| Schema { validator })
            .map_err(|e| {
                let at = e.instance_path().as_str();
                if at.is_empty() {
                    describe(&e)
                } else {
                    format!("at {at}: {}", describe(&e))
                }
            })
    }

    /// The embedded tool-metadata schema.
    pub fn tool() -> &'static Schema {
        Embedded::Tool.compiled()
    }

    /// Every violation of `instance`, in document order.
    pub fn violations(&self, instance: &Value) -> Vec<Violation> {
        let mut out: Vec<Violation> = self
            .validator
            .iter_errors(instance)
            .map(|e| Violation {
                pointer: e.instance_path().as_str().to_string(),
                message: describe(&e),
            })
            .collect();
        out.sort_by(|a, b| a.pointer.cmp(&b.pointer).then(a.message.cmp(&b.message)));
        out.dedup();
        out
    }
}

/// One violation as "expected X, found Y".
fn describe(e: &ValidationError<'_>) -> String {
    let found = e.instance();
    let found = found.as_ref();
    match e.kind() {
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => t.to_string(),
                TypeKind::Multiple(set) => {
                    let names: Vec<String> = set.iter().map(|t| t.to_string()).collect();
                    names.join(" or ")
                }
            };
            format!("expected {expected}, found {}", show(found))
        }
        ValidationErrorKind::Required { property } => {
            format!("expected required property {property}, found it missing")
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => format!(
            "expected no other properties, found unknown {} {}",
            if unexpected.len() == 1 {
                "property"
            } else {
                "properties"
            },
            unexpected
                .iter()
                .map(|p| format!("\"{p}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ValidationErrorKind::Enum { options } => {
            format!("expected one of {}, found {}", options, show(found))
        }
        ValidationErrorKind::Constant { expected_value } => {
            format!("expected {expected_value}, found {}", show(found))
        }
        kind => bound(kind, found)
            .or_else(|| size(kind, found))
            .or_else(|| shape(kind, found))
            .unwrap_or_else(|| format!("{e}")),
    }
}

/// Numeric limits: minimum, maximum, exclusive bounds, multiples.
fn bound(kind: &ValidationErrorKind, found: &Value) -> Option<String> {
    let message = match kind {
        ValidationErrorKind::Minimum { limit } => {
            format!("expected a number >= {limit}, found {}", show(found))
        }
        ValidationErrorKind::Maximum { limit } => {
            format!("expected a number <= {limit}, found {}", show(found))
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("expected a number > {limit}, found {}", show(found))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("expected a number < {limit}, found {}", show(found))
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!(
                "expected a multiple of {multiple_of}, found {}",
                show(found)
            )
        }
        _ => return None,
    };
    Some(message)
}

/// Lengths of strings and arrays.
fn size(kind: &ValidationErrorKind, found: &Value) -> Option<String> {
    let message = match kind {
        ValidationErrorKind::MinLength { limit } => format!(
            "expected at least {limit} characters, found {}",
            char_count(found)
        ),
        ValidationErrorKind::MaxLength { limit } => format!(
            "expected at most {limit} characters, found {}",
            char_count(found)
        ),
        ValidationErrorKind::MinItems { limit } => format!(
            "expected at least {limit} items, found {}",
            found.as_array().map_or(0, Vec::len)
        ),
        ValidationErrorKind::MaxItems { limit } => format!(
            "expected at most {limit} items, found {}",
            found.as_array().map_or(0, Vec::len)
        ),
        _ => return None,
    };
    Some(message)
}

/// Uniqueness, patterns, formats and the combinators.
fn shape(kind: &ValidationErrorKind, found: &Value) -> Option<String> {
    let message = match kind {
        ValidationErrorKind::UniqueItems => {
            format!("expected unique items, found duplicates in {}", show(found))
        }
        ValidationErrorKind::Pattern { pattern } => {
            format!(
                "expected a string matching /{pattern}/, found {}",
                show(found)
            )
        }
        ValidationErrorKind::Format { format } => {
            format!("expected a valid {format}, found {}", show(found))
        }
        ValidationErrorKind::OneOfNotValid { .. } | ValidationErrorKind::AnyOf { .. } => {
            format!(
                "expected a value matching one of the allowed shapes, found {}",
                show(found)
            )
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => format!(
            "expected a value matching exactly one allowed shape, found {} matching several",
            show(found)
        ),
        _ => return None,
    };
    Some(message)
}

fn char_count(v: &Value) -> String {
    match v.as_str() {
        Some(s) => format!("{} ({})", s.chars().count(), show(v)),
        None => show(v),
    }
}

/// A short rendering of a found value: its type and, when small, the value itself.
pub fn show(v: &Value) -> String {
    let kind = match v {
        Value::Null => return "null".to_string(),
        Value::Bool(b) => return format!("boolean {b}"),
        Value::Number(n) => return format!("number {n}"),
        Value::String(_) => "string",
        Value::Array(a) => return format!("array of {} items", a.len()),
        Value::Object(o) => return format!("object with {} properties", o.len()),
    };
    let text = v.to_string();
    if text.chars().count() <= 60 {
        format!("{kind} {text}")
    } else {
        let cut: String = text.chars().take(57).collect();
        format!("{kind} {cut}...\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reports_every_violation_with_pointer() {
        let s = Schema::compile(&json!({
            "type": "object",
            "required": ["a"],
            "additionalProperties": false,
            "properties": {"b": {"type": "integer", "maximum": 3}, "c": {"enum": ["x", "y"]}}
        }))
        .unwrap();
        let v = s.violations(&json!({"b": 9, "c": "z", "d": 1}));
        let text: Vec<String> = v
            .iter()
            .map(|v| format!("{}: {}", v.pointer, v.message))
            .collect();
        assert_eq!(
            text,
            vec![
                ": expected no other properties, found unknown property \"d\"",
                ": expected required property \"a\", found it missing",
                "/b: expected a number <= 3, found number 9",
                "/c: expected one of [\"x\",\"y\"], found string \"z\"",
            ]
        );
    }

    #[test]
    fn type_errors_name_both_sides() {
        let s = Schema::compile(&json!({"type": "string"})).unwrap();
        assert_eq!(
            s.violations(&json!(3))[0].message,
            "expected string, found number 3"
        );
    }

    #[test]
    fn tool_schema_compiles() {
        let _ = Schema::tool();
    }
}
