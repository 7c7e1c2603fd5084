//! Prompts: toolscout's own research workflows over the 13 builtin tools, the "find the right
//! tool" workflow, and the system prompt that introduces both. Served by `/prompts/*` and
//! `/tools/system` (and by MCP prompts later). The texts live beside this file as Markdown so
//! they read and review as prose; the code holds only their names and arguments.
//!
//! A template names its arguments as `{{name}}`. Rendering substitutes each value verbatim in
//! one pass (a value that itself contains `{{x}}` is not expanded again). A line that names an
//! optional argument the caller left out is dropped as a whole, so templates can say
//! "Focus on: {{focus}}" without leaving "Focus on: " behind.

use crate::error::{Error, Result, Violation};
use serde::Serialize;
use std::collections::BTreeMap;

/// One argument a prompt takes.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PromptArgument {
    pub name: &'static str,
    pub description: &'static str,
    pub required: bool,
}

/// One prompt: a name, what it is for, its arguments and its template.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Prompt {
    pub name: &'static str,
    pub description: &'static str,
    pub arguments: &'static [PromptArgument],
    #[serde(skip)]
    pub template: &'static str,
}

const fn arg(name: &'static str, description: &'static str, required: bool) -> PromptArgument {
    PromptArgument {
        name,
        description,
        required,
    }
}

/// The system prompt: what toolscout is, the 13 tools, how calls are shaped, how to work.
pub const SYSTEM_PROMPT: &str = include_str!("system.md");

/// Every prompt, in the order `/prompts/list` shows them.
pub const PROMPTS: &[Prompt] = &[
    Prompt {
        name: "find-tool",
        description: "Find the right tool for a task: search the catalog, read the evidence, get a recommendation, check the schema",
        arguments: &[
            arg("task", "What needs doing, in plain words", true),
            arg("context", "The situation the tool has to fit: language, environment, constraints", false),
        ],
        template: include_str!("find-tool.md"),
    },
    Prompt {
        name: "explore-codebase",
        description: "Explore a local codebase: map its layout, find the entry points, follow the main flow",
        arguments: &[
            arg("path", "Root directory of the project", true),
            arg("question", "What you want to understand about it", false),
        ],
        template: include_str!("explore-codebase.md"),
    },
    Prompt {
        name: "trace-function",
        description: "Trace a function with the language-server tools: definition, callers, callees, side effects",
        arguments: &[
            arg("symbol", "Name of the function or method", true),
            arg("file", "A file that defines or uses it", false),
            arg("direction", "incoming (callers) or outgoing (callees); both when left out", false),
        ],
        template: include_str!("trace-function.md"),
    },
    Prompt {
        name: "research-repository",
        description: "Answer a question about a GitHub repository from its structure, code and pull requests",
        arguments: &[
            arg("repository", "The repository as owner/name", true),
            arg("question", "What you want to find out", true),
            arg("ref", "Branch or tag to read; the default branch when left out", false),
        ],
        template: include_str!("research-repository.md"),
    },
    Prompt {
        name: "evaluate-package",
        description: "Evaluate an npm or PyPI package: metadata, source, maintenance, risks, alternatives",
        arguments: &[
            arg("package", "Package name", true),
            arg("ecosystem", "npm or python", true),
            arg("use_case", "What the package would be used for", false),
        ],
        template: include_str!("evaluate-package.md"),
    },
    Prompt {
        name: "review-pull-request",
        description: "Review a GitHub pull request: claims, diff, surrounding code, tests, findings by severity",
        arguments: &[
            arg("repository", "The repository as owner/name", true),
            arg("pr_number", "Number of the pull request", true),
            arg("focus", "What to look at most closely (security, performance, API design ...)", false),
        ],
        template: include_str!("review-pull-request.md"),
    },
];

/// The prompt called `name` (exact match; names are lowercase kebab-case).
pub fn find(name: &str) -> Option<&'static Prompt> {
    PROMPTS.iter().find(|p| p.name == name)
}

/// The prompt, or `PromptNotFound` with close names and the full list.
pub fn require(name: &str) -> Result<&'static Prompt> {
    find(name).ok_or_else(|| Error::PromptNotFound {
        name: name.to_string(),
        suggestions: crate::catalog::suggest(name, PROMPTS.iter().map(|p| p.name)),
        available: PROMPTS.iter().map(|p| p.name.to_string()).collect(),
    })
}

impl Prompt {
    /// The template with `args` filled in. Every missing required argument, empty value and
    /// unknown argument is reported at once, each at the pointer `/<argument>`.
    pub fn render(&self, args: &BTreeMap<String, String>) -> Result<String> {
        let mut violations = Vec::new();
        for (name, value) in args {
            match self.arguments.iter().find(|a| a.name == name) {
                None => violations.push(Violation {
                    pointer: format!("/{name}"),
                    message: format!(
                        "expected one of the arguments {}, found unknown argument \"{name}\"",
                        self.argument_names()
                    ),
                }),
                Some(_) if value.trim().is_empty() => violations.push(Violation {
                    pointer: format!("/{name}"),
                    message: format!(
                        "expected a value for argument \"{name}\", found an empty one"
                    ),
                }),
                Some(_) => {}
            }
        }
        for a in self.arguments.iter().filter(|a| a.required) {
            if !args.contains_key(a.name) {
                violations.push(Violation {
                    pointer: format!("/{}", a.name),
                    message: format!(
                        "expected required argument \"{}\" ({}), found it missing",
                        a.name, a.description
                    ),
                });
            }
        }
        if !violations.is_empty() {
            violations.sort_by(|a, b| a.pointer.cmp(&b.pointer));
            return Err(Error::Validation {
                what: format!("arguments of prompt '{}'", self.name),
                violations,
            });
        }
        let mut out = String::with_capacity(self.template.len());
        for line in self.template.split_inclusive('\n') {
            if let Some(rendered) = render_line(line, args) {
                out.push_str(&rendered);
            }
        }
        Ok(out)
    }

    fn argument_names(&self) -> String {
        let names: Vec<&str> = self.arguments.iter().map(|a| a.name).collect();
        if names.is_empty() {
            "(none)".to_string()
        } else {
            names.join(", ")
        }
    }
}

/// A piece of a template: literal text, or the name inside a `{{name}}` placeholder.
enum Part<'a> {
    Text(&'a str),
    Argument(&'a str),
}

/// Splits template text at its placeholders; an unclosed `{{` stays text.
fn parts(text: &str) -> Vec<Part<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start + 2..].find("}}") else {
            break;
        };
        out.push(Part::Text(&rest[..start]));
        out.push(Part::Argument(rest[start + 2..start + 2 + len].trim()));
        rest = &rest[start + 2 + len + 2..];
    }
    out.push(Part::Text(rest));
    out
}

/// The line with its placeholders filled, or `None` when it names an argument without a value.
fn render_line(line: &str, args: &BTreeMap<String, String>) -> Option<String> {
    parts(line)
        .into_iter()
        .map(|part| match part {
            Part::Text(text) => Some(text),
            Part::Argument(name) => args.get(name).map(String::as_str),
        })
        .collect()
}

/// The argument names a template uses, in order of first use.
pub fn placeholders(template: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for part in parts(template) {
        if let Part::Argument(name) = part {
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn templates_use_exactly_their_declared_arguments() {
        let mut names: Vec<&str> = PROMPTS.iter().map(|p| p.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), PROMPTS.len(), "prompt names are unique");
        for p in PROMPTS {
            let mut used = placeholders(p.template);
            used.sort();
            let mut declared: Vec<&str> = p.arguments.iter().map(|a| a.name).collect();
            declared.sort();
            assert_eq!(used, declared, "{}", p.name);
            assert!(p.arguments.iter().any(|a| a.required), "{}", p.name);
            assert!(
                p.name.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{}",
                p.name
            );
        }
        assert!(placeholders(SYSTEM_PROMPT).is_empty());
    }

    #[test]
    fn research_prompts_name_real_builtin_tools() {
        let all: String = PROMPTS.iter().map(|p| p.template).collect();
        let all = format!("{all}{SYSTEM_PROMPT}");
        for tool in crate::builtin::BUILTIN_TOOLS {
            assert!(all.contains(tool), "no prompt mentions {tool}");
            assert!(
                SYSTEM_PROMPT.contains(tool),
                "the system prompt lacks {tool}"
            );
        }
    }

    #[test]
    fn renders_values_and_drops_lines_of_absent_optional_arguments() {
        let p = find("explore-codebase").unwrap();
        let text = p.render(&args(&[("path", "/src/app")])).unwrap();
        assert!(text.starts_with("Explore the local codebase at /src/app and"));
        assert!(text.contains("Call localViewStructure on /src/app with depth 2"));
        assert!(!text.contains("The question to keep in mind"));
        assert!(!text.contains("{{"));
        let text = p
            .render(&args(&[
                ("path", "."),
                ("question", "where is auth? {{path}}"),
            ]))
            .unwrap();
        assert!(text.contains("The question to keep in mind: where is auth? {{path}}\n"));
    }

    #[test]
    fn reports_every_argument_problem_at_once() {
        let p = find("research-repository").unwrap();
        let err = p
            .render(&args(&[("repository", " "), ("colour", "red")]))
            .unwrap_err();
        assert_eq!(err.code(), "VALIDATION_FAILED");
        let Error::Validation { violations, what } = err else {
            unreachable!()
        };
        assert_eq!(what, "arguments of prompt 'research-repository'");
        let pointers: Vec<&str> = violations.iter().map(|v| v.pointer.as_str()).collect();
        assert_eq!(pointers, ["/colour", "/question", "/repository"]);
        assert!(violations[1]
            .message
            .starts_with("expected required argument \"question\""));
    }

    #[test]
    fn unknown_prompts_suggest_close_names() {
        let err = require("trace-fuction").unwrap_err();
        assert_eq!(err.code(), "PROMPT_NOT_FOUND");
        assert_eq!(err.status(), 404);
        let params = err.parameters();
        assert_eq!(params["suggestions"][0], "trace-function");
        assert_eq!(
            params["available_prompts"].as_array().unwrap().len(),
            PROMPTS.len()
        );
    }
}
