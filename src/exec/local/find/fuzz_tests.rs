//! Fuzzing of localFindFiles' find-syntax parsers with near-valid values (digits of any
//! length with any unit letters, signs, octal and symbolic modes, POSIX regexes built from
//! metacharacters) and hostile text: each value parses, or is refused with a message that
//! names its field; parsed values are usable (a mode within the 12 permission bits, a size
//! unit that divides, a translated regex the `regex` crate compiles or refuses cleanly).

use super::parse::{age, perm, posix_to_regex, size, Perm, RegexType};
use proptest::prelude::*;

fn near(pattern: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![3 => proptest::string::string_regex(pattern).unwrap(), 1 => crate::hostile_text::short_text()]
}

proptest! {
    #![proptest_config(crate::fuzz_json::config(256))]

    #[test]
    fn ages_parse_or_name_their_field(raw in near("[+-]?[0-9]{0,22}[hdwmHDs ]{0,2}")) {
        if let Err(e) = age("modifiedWithin", &raw) {
            prop_assert!(e.message.starts_with("modifiedWithin"), "{}", e.message);
        }
    }

    #[test]
    fn sizes_parse_or_name_their_field(raw in near("[+-]?[0-9]{0,22}[cwbkKMmGgT ]{0,2}")) {
        match size("sizeGreater", &raw, '+') {
            Ok(s) => {
                prop_assert!(s.unit >= 1);
                let _ = s.units_of(u64::MAX);
            }
            Err(e) => prop_assert!(e.message.starts_with("sizeGreater"), "{}", e.message),
        }
    }

    #[test]
    fn modes_parse_within_the_permission_bits(
        raw in near("[-/+]?([0-9]{0,6}|[ugoa]{0,3}[-+=][rwxXst]{0,4}(,[ugoa]{0,3}[-+=][rwxXst]{0,4}){0,2})"),
        mode in 0u32..0o100000,
    ) {
        match perm(&raw) {
            Ok(p) => {
                let (Perm::Exact(bits) | Perm::All(bits) | Perm::Any(bits)) = p;
                prop_assert!(bits <= 0o7777, "{raw}: {bits:o}");
                let _ = p.matches(mode);
            }
            Err(e) => prop_assert!(e.message.contains("permissions"), "{}", e.message),
        }
    }

    #[test]
    fn posix_regexes_translate_or_say_why(
        pattern in near("[\\[\\]\\\\^$.*+?(){}|:=<>`'abc19 -]{0,24}"),
        dialect in proptest::sample::select(vec![RegexType::Basic, RegexType::Extended, RegexType::Egrep]),
    ) {
        match posix_to_regex(&pattern, dialect) {
            Ok(translated) => {
                let _ = regex::Regex::new(&translated);
            }
            Err(why) => prop_assert!(!why.trim().is_empty()),
        }
    }
}
