//! What the defect corpus (`tests/fixtures/bad-catalog`) must produce, file by file: the
//! expectation table behind the tests in `catalog_validate`.

use toolscout::catalog::Severity;

/// One diagnostic the corpus must produce: where, what kind, and the parts of the message that
/// say what was expected and what was found.
pub struct Expect {
    pub file: &'static str,
    pub pointer: &'static str,
    pub severity: Severity,
    pub code: &'static str,
    pub says: &'static [&'static str],
}

pub const fn error(
    file: &'static str,
    pointer: &'static str,
    code: &'static str,
    says: &'static [&'static str],
) -> Expect {
    Expect {
        file,
        pointer,
        severity: Severity::Error,
        code,
        says,
    }
}

pub const fn warning(
    file: &'static str,
    pointer: &'static str,
    code: &'static str,
    says: &'static [&'static str],
) -> Expect {
    Expect {
        file,
        pointer,
        severity: Severity::Warning,
        code,
        says,
    }
}

/// Files of the corpus that must produce no diagnostic at all: the valid tools the defective
/// ones refer to, the first of the two files sharing a tool_id (the second one is blamed), and a
/// tool that sets a score to exactly the default on purpose (only omitted scores are warned).
pub const CLEAN: &[&str] = &[
    "base/read_note.json",
    "base/search_notes.json",
    "cross_file/duplicate_id.json",
    "warnings/explicit_half_score.json",
];

/// Every diagnostic of the corpus. Each defective file has exactly one.
pub const EXPECTED: &[Expect] = &[
    // Files that are not JSON documents at all.
    error(
        "files/empty_file.json",
        "",
        "empty_file",
        &["expected a JSON object", "found an empty file"],
    ),
    error(
        "files/not_utf8.json",
        "",
        "not_utf8",
        &[
            "expected UTF-8 text",
            "found an invalid byte sequence at byte 141",
        ],
    ),
    error(
        "files/invalid_json.json",
        "",
        "invalid_json",
        &[
            "expected valid JSON",
            "found a syntax error at line 54 column 1",
            "trailing comma",
        ],
    ),
    // JSON that breaks the tool schema.
    error(
        "schema/missing_required_field.json",
        "",
        "schema",
        &["expected required property \"name\"", "found it missing"],
    ),
    error(
        "schema/wrong_type.json",
        "/version",
        "schema",
        &["expected string", "found number 2"],
    ),
    error(
        "schema/bad_score_range.json",
        "/popularity_score",
        "schema",
        &["expected a number <= 1", "found number 1.5"],
    ),
    error(
        "schema/bad_tool_type.json",
        "/tool_type",
        "schema",
        &[
            "expected one of [\"system\",\"custom\",\"third_party\",\"experimental\"]",
            "found string \"plugin\"",
        ],
    ),
    error(
        "schema/bad_date_time.json",
        "/updated_at",
        "schema",
        &[
            "expected a valid date-time",
            "found string \"2026-01-01 12:00\"",
        ],
    ),
    error(
        "schema/bad_uri.json",
        "/repository_url",
        "schema",
        &[
            "expected a valid uri",
            "found string \"github.com/example/notes\"",
        ],
    ),
    error(
        "schema/bad-tool-id-pattern.json",
        "/tool_id",
        "schema",
        &[
            "expected a string matching /^[a-z][a-z0-9_]{1,63}$/",
            "found string \"bad-tool-id-pattern\"",
        ],
    ),
    error(
        "schema/unknown_property.json",
        "",
        "schema",
        &[
            "expected no other properties",
            "found unknown property \"homepage\"",
        ],
    ),
    // Files in the wrong place or with the wrong name.
    error(
        "layout/id_filename_mismatch.json",
        "/tool_id",
        "id_filename_mismatch",
        &[
            "expected tool_id to equal the file name \"id_filename_mismatch\"",
            "found \"renamed_tool\"",
        ],
    ),
    error(
        "layout/category_dir_mismatch.json",
        "/category",
        "category_dir_mismatch",
        &[
            "expected category to equal the directory name \"layout\"",
            "found \"other_category\"",
        ],
    ),
    error(
        "misplaced_file.json",
        "",
        "misplaced_file",
        &[
            "expected the file at <category>/<tool_id>.json inside the catalog",
            "found it at misplaced_file.json",
        ],
    ),
    // Tools that pass the schema but contradict themselves.
    error(
        "semantics/self_reference.json",
        "/similar_tools/0",
        "self_reference",
        &[
            "expected other tools' ids",
            "found the tool's own id \"self_reference\"",
        ],
    ),
    error(
        "semantics/unknown_executor.json",
        "/execution/name",
        "unknown_executor",
        &[
            "expected one of the builtin executors (githubSearchCode, ",
            "found \"localSearchCod\"",
            "did you mean \"localSearchCode\"?",
        ],
    ),
    error(
        "semantics/duplicate_parameter.json",
        "/parameters/1/name",
        "duplicate_parameter",
        &[
            "expected unique parameter names",
            "found \"query\" again (first at /parameters/0)",
        ],
    ),
    error(
        "semantics/parameter_not_in_schema.json",
        "/parameters/1/name",
        "parameter_not_in_schema",
        &[
            "expected a property of input_schema",
            "found \"limit\" which input_schema.properties lacks",
        ],
    ),
    error(
        "semantics/undocumented_property.json",
        "/input_schema/properties/limit",
        "undocumented_property",
        &[
            "expected every input_schema property to be described in parameters",
            "found \"limit\" undescribed",
        ],
    ),
    error(
        "semantics/required_mismatch_parameter.json",
        "/parameters/0/required",
        "required_mismatch",
        &[
            "expected \"query\" in input_schema.required since the parameter is required",
            "found it missing",
        ],
    ),
    error(
        "semantics/required_mismatch_schema.json",
        "/parameters/0/required",
        "required_mismatch",
        &[
            "expected required: true since input_schema.required lists \"query\"",
            "found false",
        ],
    ),
    error(
        "semantics/required_not_a_property.json",
        "/input_schema/required",
        "required_mismatch",
        &[
            "expected required names to be properties",
            "found \"limit\" which input_schema.properties lacks",
        ],
    ),
    error(
        "semantics/example_invalid.json",
        "/examples/0/arguments/query",
        "example_invalid",
        &[
            "argument does not fit input_schema",
            "expected string, found number 42",
        ],
    ),
    error(
        "semantics/duplicate_example.json",
        "/examples/1/id",
        "duplicate_example",
        &[
            "expected unique example ids",
            "found \"basic\" again (first at /examples/0)",
        ],
    ),
    error(
        "semantics/default_invalid.json",
        "/parameters/1/default_value",
        "default_invalid",
        &[
            "default_value does not fit the property's schema",
            "expected integer, found string \"ten\"",
        ],
    ),
    error(
        "semantics/invalid_input_schema.json",
        "/input_schema",
        "invalid_input_schema",
        &[
            "expected a usable JSON Schema, found one that does not compile",
            "at /properties/query/type",
            "\"nonsense\"",
        ],
    ),
    // Defects only visible across files; the later file (in path order) is the one blamed.
    error(
        "cross_file_copy/duplicate_id.json",
        "/tool_id",
        "duplicate_id",
        &[
            "expected a unique tool_id",
            "found \"duplicate_id\" already used by cross_file/duplicate_id.json",
        ],
    ),
    error(
        "cross_file/duplicate_name.json",
        "/aliases/0",
        "duplicate_name",
        &[
            "expected a name unique across the catalog (ignoring case and separators)",
            "found \"search-notes\" clashing with \"searchNotes\" of tool \"search_notes\"",
        ],
    ),
    error(
        "cross_file/unknown_reference.json",
        "/complementary_tools/0",
        "unknown_reference",
        &[
            "expected the id of a tool in the catalog",
            "found unknown \"read_notes\"",
            "did you mean \"read_note\"?",
        ],
    ),
    error(
        "cross_file/unknown_reference_in_pattern.json",
        "/usage_patterns/0/tool_sequence/2",
        "unknown_reference",
        &[
            "expected the id of a tool in the catalog",
            "found unknown \"open_note\"",
        ],
    ),
    // Valid tools that deserve a warning.
    warning(
        "warnings/short_description.json",
        "/description",
        "short_description",
        &[
            "expected a description of at least 120 characters",
            "found 56",
        ],
    ),
    warning(
        "warnings/missing_recommended.json",
        "/version",
        "missing_recommended",
        &["expected version", "found it missing"],
    ),
    warning(
        "warnings/no_examples.json",
        "/examples",
        "no_examples",
        &["expected at least one example", "found none"],
    ),
    warning(
        "warnings/default_score_omitted.json",
        "/complexity_score",
        "default_score",
        &[
            "expected a considered score from 0 to 1",
            "found none (the default 0.5 applies)",
        ],
    ),
];

/// Every code the validator can emit, except `internal` (the schema and the record type
/// disagreeing: a bug of toolscout, not something a catalog file can provoke).
pub const ALL_CODES: &[&str] = &[
    "empty_file",
    "not_utf8",
    "invalid_json",
    "schema",
    "id_filename_mismatch",
    "category_dir_mismatch",
    "misplaced_file",
    "self_reference",
    "unknown_executor",
    "duplicate_parameter",
    "parameter_not_in_schema",
    "undocumented_property",
    "required_mismatch",
    "example_invalid",
    "duplicate_example",
    "default_invalid",
    "invalid_input_schema",
    "duplicate_id",
    "duplicate_name",
    "unknown_reference",
    "short_description",
    "no_examples",
    "default_score",
    "missing_recommended",
];
