//! Test helpers shared by the tool families: each tool's contract, its `input_schema` and
//! `return_schema`, read once from the shipped catalog entry that binds it.

use super::Tool;
use crate::schema::Schema;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

struct Contract {
    input: Schema,
    output: Schema,
}

fn contracts() -> &'static BTreeMap<Tool, Contract> {
    static ALL: OnceLock<BTreeMap<Tool, Contract>> = OnceLock::new();
    ALL.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog");
        let mut out = BTreeMap::new();
        for category in std::fs::read_dir(&dir).expect("shipped catalog") {
            for file in std::fs::read_dir(category.unwrap().path()).unwrap() {
                let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
                let record: Value = serde_json::from_str(&text).unwrap();
                let Some(tool) = record["execution"]["name"]
                    .as_str()
                    .and_then(Tool::from_name)
                else {
                    continue;
                };
                let compile = |key: &str| {
                    Schema::compile(&record[key])
                        .unwrap_or_else(|e| panic!("{key} of {}: {e}", tool.name()))
                };
                out.insert(
                    tool,
                    Contract {
                        input: compile("input_schema"),
                        output: compile("return_schema"),
                    },
                );
            }
        }
        assert_eq!(
            out.len(),
            Tool::ALL.len(),
            "every tool is bound in the shipped catalog"
        );
        out
    })
}

/// A test's query must itself be valid, or the test proves nothing.
pub(crate) fn assert_fits_input_schema(tool: Tool, query: &Value) {
    let violations = contracts()[&tool].input.violations(query);
    assert!(
        violations.is_empty(),
        "{} test query breaks the input schema: {violations:?}\n{query:#}",
        tool.name()
    );
}

/// Every answer's `data` must fit the tool's `return_schema`.
pub(crate) fn assert_fits_return_schema(tool: Tool, data: &Value) {
    let violations = contracts()[&tool].output.violations(data);
    assert!(
        violations.is_empty(),
        "{}: {violations:?}\n{data:#}",
        tool.name()
    );
}
