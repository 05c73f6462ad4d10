//! Which keys at the top of `config.toml` a section owns, and where a key stands, for the
//! error that names a key no section owns.

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// The top-level keys the section `T` reads: the field names its derived `Deserialize`
/// hands to `deserialize_struct` (renames included), caught by a deserializer that stops
/// there.
pub fn known_keys<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    let mut catch = Catch(&[]);
    let _ = T::deserialize(&mut catch);
    catch.0
}

struct Catch(&'static [&'static str]);

impl<'de> Deserializer<'de> for &mut Catch {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        self.0 = fields;
        Err(de::Error::custom("fields caught"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// The 1-based line where the top-level `key` is set: `key = …`, `key.sub = …` above the
/// first table, or a `[key]` / `[key.sub]` / `[[key]]` header.
pub fn line_of_key(text: &str, key: &str) -> Option<usize> {
    let names = |k: &str| {
        let first = k.split('.').next().unwrap_or(k).trim().trim_matches('"');
        first == key
    };
    let mut in_table = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            in_table = true;
            let header = line.trim_start_matches('[').split(']').next().unwrap_or("");
            if names(header) {
                return Some(i + 1);
            }
        } else if !in_table
            && let Some((k, _)) = line.split_once('=')
            && !line.starts_with('#')
            && names(k)
        {
            return Some(i + 1);
        }
    }
    spanned_line(text, key)
}

/// The line of a top-level `key` the plain reading above misses (a quoted key with escapes
/// or a newline in it): where the TOML parser itself saw the key.
fn spanned_line(text: &str, key: &str) -> Option<usize> {
    let table: std::collections::BTreeMap<toml::Spanned<String>, serde::de::IgnoredAny> =
        toml::from_str(text).ok()?;
    let (found, _) = table.iter().find(|(k, _)| k.get_ref() == key)?;
    let start = found.span().start;
    Some(text.get(..start)?.matches('\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Two {
        a: Option<u32>,
        #[serde(rename = "b-b")]
        b: Option<u32>,
    }

    #[test]
    fn the_fields_are_caught_with_their_renames() {
        assert_eq!(known_keys::<Two>(), &["a", "b-b"]);
    }

    #[test]
    fn a_key_is_found_above_the_tables_or_as_a_header() {
        let text = "# x = 1\nx.y = 2\n[t]\nz = 1\n[[w.v]]\n";
        assert_eq!(line_of_key(text, "x"), Some(2));
        assert_eq!(line_of_key(text, "z"), None, "z belongs to [t]");
        assert_eq!(line_of_key(text, "w"), Some(5));
        // A quoted key with a newline escaped in it: where the parser saw it.
        let quoted = "a = 1\n\"\\n4o8\\n e\" = 2\n";
        assert_eq!(line_of_key(quoted, "\n4o8\n e"), Some(2));
    }
}
