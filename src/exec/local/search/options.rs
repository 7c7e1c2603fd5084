//! localSearchCode's query as the agent wrote it, and the settings it comes to once the mode
//! preset is applied, the case options are ranked and conflicting combinations are settled:
//! the three octocode refuses are errors naming both fields, the rest become warnings that say
//! which option won.

use crate::exec::outcome::{Failure, QueryError, ToolErrorCode};
use serde::Deserialize;

/// The query fields, as validated by the catalog's input schema (`id`, `researchGoal` and
/// `reasoning` are ignored here).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Query {
    pub pattern: String,
    pub path: String,
    pub mode: Option<Mode>,
    pub fixed_string: Option<bool>,
    pub perl_regex: Option<bool>,
    pub smart_case: Option<bool>,
    pub case_insensitive: Option<bool>,
    pub case_sensitive: Option<bool>,
    pub whole_word: Option<bool>,
    pub invert_match: Option<bool>,
    #[serde(rename = "type")]
    pub file_type: Option<String>,
    pub include: Option<Vec<String>>,
    pub exclude: Option<Vec<String>>,
    pub exclude_dir: Option<Vec<String>>,
    pub no_ignore: Option<bool>,
    pub hidden: Option<bool>,
    pub follow_symlinks: Option<bool>,
    pub files_only: Option<bool>,
    pub files_without_match: Option<bool>,
    pub count: Option<bool>,
    pub count_matches: Option<bool>,
    pub context_lines: Option<usize>,
    pub before_context: Option<usize>,
    pub after_context: Option<usize>,
    pub match_content_length: Option<usize>,
    pub max_matches_per_file: Option<u64>,
    pub max_files: Option<usize>,
    pub files_per_page: Option<usize>,
    pub file_page_number: Option<usize>,
    pub matches_per_page: Option<usize>,
    pub char_offset: Option<usize>,
    pub char_length: Option<usize>,
    pub multiline: Option<bool>,
    pub multiline_dotall: Option<bool>,
    pub binary_files: Option<BinaryFiles>,
    pub include_stats: Option<bool>,
    pub threads: Option<usize>,
    pub mmap: Option<bool>,
    pub no_unicode: Option<bool>,
    pub encoding: Option<String>,
    pub sort: Option<Sort>,
    pub sort_reverse: Option<bool>,
    pub no_messages: Option<bool>,
    pub line_regexp: Option<bool>,
    pub passthru: Option<bool>,
    pub debug: Option<bool>,
    pub show_file_last_modified: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Mode {
    Discovery,
    Paginated,
    Detailed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum BinaryFiles {
    Text,
    WithoutMatch,
    Binary,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Sort {
    Path,
    Modified,
    Accessed,
    Created,
}

impl Sort {
    pub fn name(self) -> &'static str {
        match self {
            Sort::Path => "path",
            Sort::Modified => "modified",
            Sort::Accessed => "accessed",
            Sort::Created => "created",
        }
    }
}

/// What each file contributes to the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// Matching lines (the default).
    Lines,
    /// Paths of files with a match (`filesOnly`).
    FilesWithMatches,
    /// Paths of files without any match (`filesWithoutMatch`).
    FilesWithoutMatch,
    /// Matching lines per file (`count`).
    CountLines,
    /// Individual matches per file (`countMatches`).
    CountMatches,
}

/// How letter case is treated, after ranking caseSensitive > caseInsensitive > smartCase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Case {
    Sensitive,
    Insensitive,
    Smart,
}

/// The effective settings of one search.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub pattern: String,
    pub path: String,
    pub fixed_string: bool,
    pub perl_regex: bool,
    pub case: Case,
    pub whole_word: bool,
    pub line_regexp: bool,
    pub invert: bool,
    pub multiline: bool,
    pub dotall: bool,
    pub no_unicode: bool,
    pub file_type: Option<String>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub exclude_dir: Vec<String>,
    pub no_ignore: bool,
    pub hidden: bool,
    pub follow_symlinks: bool,
    pub output: Output,
    pub before: usize,
    pub after: usize,
    pub passthru: bool,
    pub content_chars: usize,
    /// Stop searching a file after this many matching lines (`maxMatchesPerFile`, rg -m).
    pub stop_after: Option<u64>,
    /// Matches listed per file.
    pub shown_per_file: usize,
    pub max_files: Option<usize>,
    pub files_per_page: usize,
    pub file_page: usize,
    pub char_offset: Option<usize>,
    pub char_length: Option<usize>,
    pub binary: BinaryFiles,
    pub include_stats: bool,
    pub threads: Option<usize>,
    pub encoding: Option<String>,
    pub sort: Sort,
    pub sort_reverse: bool,
    pub show_modified: bool,
    pub no_messages: bool,
    pub debug: bool,
}

pub(crate) const DEFAULT_FILES_PER_PAGE: usize = 10;
pub(crate) const DEFAULT_MATCHES_PER_PAGE: usize = 10;
pub(crate) const DEFAULT_CONTENT_CHARS: usize = 200;

fn conflict(a: &str, b: &str, why: &str) -> QueryError {
    QueryError::new(
        Failure::Invalid,
        ToolErrorCode::ConflictingOptions,
        format!("{a} and {b} cannot be used together: {why}"),
    )
    .hint(format!("Set only one of {a} and {b}"))
    .detail("conflictingFields", serde_json::json!([a, b]))
}

impl Options {
    /// Applies the mode preset (explicit fields win), refuses the three contradictory
    /// combinations and ranks the rest, returning the settings and a warning per settled clash.
    pub fn resolve(q: Query) -> Result<(Options, Vec<String>), QueryError> {
        check_conflicts(&q)?;
        let mut warnings = Vec::new();
        // Presets fill only what the query left unset.
        let (preset_count, preset_context, preset_matches) = match q.mode {
            Some(Mode::Discovery) => (Some(true), None, None),
            Some(Mode::Paginated) => (None, None, Some(DEFAULT_MATCHES_PER_PAGE)),
            Some(Mode::Detailed) => (None, Some(3), Some(20)),
            None => (None, None, None),
        };
        let count = q.count.or(preset_count).unwrap_or(false);
        let context_lines = q.context_lines.or(preset_context).unwrap_or(0);
        let matches_per_page = q.matches_per_page.or(preset_matches);
        let case = case_of(&q, &mut warnings);
        let output = output_of(&q, count, &mut warnings);
        let (before, after, passthru) = context_of(&q, context_lines, output, &mut warnings);
        warn_ignored_flags(&q, &mut warnings);
        let shown_per_file = match (q.max_matches_per_file, matches_per_page) {
            (_, Some(per_page)) => per_page,
            (Some(max), None) => usize::try_from(max).unwrap_or(usize::MAX),
            (None, None) => DEFAULT_MATCHES_PER_PAGE,
        };
        let layout = Layout {
            case,
            output,
            before,
            after,
            passthru,
            shown_per_file,
        };
        Ok((Options::build(q, layout), warnings))
    }

    /// The options from the query, once the choices that depend on each other are made.
    fn build(q: Query, layout: Layout) -> Options {
        let show_modified = q.show_file_last_modified.unwrap_or(false);
        // showFileLastModified orders by recency unless a sort order was asked for; newest
        // first is what "recently touched" means.
        let (sort, sort_reverse) = match (q.sort, show_modified) {
            (Some(sort), _) => (sort, on(q.sort_reverse)),
            (None, true) => (Sort::Modified, !on(q.sort_reverse)),
            (None, false) => (Sort::Path, on(q.sort_reverse)),
        };
        let encoding = q
            .encoding
            .map(|e| e.trim().to_string())
            .filter(|e| !e.is_empty() && !e.eq_ignore_ascii_case("auto"));
        let multiline = on(q.multiline);
        Options {
            pattern: q.pattern,
            path: q.path,
            fixed_string: on(q.fixed_string),
            perl_regex: on(q.perl_regex),
            case: layout.case,
            whole_word: on(q.whole_word),
            line_regexp: on(q.line_regexp),
            invert: on(q.invert_match),
            multiline,
            dotall: on(q.multiline_dotall) && multiline,
            no_unicode: on(q.no_unicode),
            file_type: q
                .file_type
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty()),
            include: q.include.unwrap_or_default(),
            exclude: q.exclude.unwrap_or_default(),
            exclude_dir: q.exclude_dir.unwrap_or_default(),
            no_ignore: on(q.no_ignore),
            hidden: on(q.hidden),
            follow_symlinks: on(q.follow_symlinks),
            output: layout.output,
            before: layout.before,
            after: layout.after,
            passthru: layout.passthru,
            content_chars: q
                .match_content_length
                .unwrap_or(DEFAULT_CONTENT_CHARS)
                .max(1),
            stop_after: q.max_matches_per_file,
            shown_per_file: layout.shown_per_file.max(1),
            max_files: q.max_files,
            files_per_page: q.files_per_page.unwrap_or(DEFAULT_FILES_PER_PAGE).max(1),
            file_page: q.file_page_number.unwrap_or(1).max(1),
            char_offset: q.char_offset,
            char_length: q.char_length,
            binary: q.binary_files.unwrap_or(BinaryFiles::WithoutMatch),
            include_stats: q.include_stats.unwrap_or(true),
            threads: q.threads,
            encoding,
            sort,
            sort_reverse,
            show_modified,
            no_messages: on(q.no_messages),
            debug: on(q.debug),
        }
    }

    /// Whether matched lines are kept at all (not just counted or listed).
    pub fn keeps_lines(&self) -> bool {
        self.output == Output::Lines
    }
}

/// An unset flag is off.
fn on(v: Option<bool>) -> bool {
    v.unwrap_or(false)
}

/// What `resolve` decides before building the options: the case rule, the output form and
/// the context around matched lines.
struct Layout {
    case: Case,
    output: Output,
    before: usize,
    after: usize,
    passthru: bool,
    shown_per_file: usize,
}

/// The options that exclude each other.
fn check_conflicts(q: &Query) -> Result<(), QueryError> {
    if on(q.fixed_string) && on(q.perl_regex) {
        return Err(conflict(
            "fixedString",
            "perlRegex",
            "one reads the pattern literally, the other as a PCRE-style regex",
        ));
    }
    if on(q.files_only) && on(q.files_without_match) {
        return Err(conflict(
            "filesOnly",
            "filesWithoutMatch",
            "one lists the files that match, the other those that do not",
        ));
    }
    if on(q.passthru) && on(q.files_only) {
        return Err(conflict(
            "passthru",
            "filesOnly",
            "passthru prints every line, filesOnly prints no lines at all",
        ));
    }
    Ok(())
}

fn case_of(q: &Query, warnings: &mut Vec<String>) -> Case {
    if on(q.case_sensitive) {
        if on(q.case_insensitive) {
            warnings.push(
                "caseSensitive and caseInsensitive were both set; caseSensitive wins".to_string(),
            );
        }
        Case::Sensitive
    } else if on(q.case_insensitive) {
        Case::Insensitive
    } else if q.smart_case.unwrap_or(true) {
        Case::Smart
    } else {
        Case::Sensitive
    }
}

fn output_of(q: &Query, count: bool, warnings: &mut Vec<String>) -> Output {
    let output = if on(q.files_only) {
        Output::FilesWithMatches
    } else if on(q.files_without_match) {
        Output::FilesWithoutMatch
    } else if on(q.count_matches) {
        Output::CountMatches
    } else if count {
        Output::CountLines
    } else {
        Output::Lines
    };
    let list_mode = matches!(output, Output::FilesWithMatches | Output::FilesWithoutMatch);
    if list_mode && (count || on(q.count_matches)) {
        warnings.push("count/countMatches are ignored when only file paths are listed".to_string());
    }
    if output == Output::CountMatches && count {
        warnings.push(
            "count and countMatches were both set; countMatches (every match, not every line) wins"
                .to_string(),
        );
    }
    if output == Output::CountMatches && on(q.invert_match) {
        warnings.push("with invertMatch, countMatches counts the non-matching lines".to_string());
    }
    output
}

/// Lines before and after each match, and passthru; only line output has them.
fn context_of(
    q: &Query,
    context_lines: usize,
    output: Output,
    warnings: &mut Vec<String>,
) -> (usize, usize, bool) {
    let (before, after) = if context_lines > 0 {
        if q.before_context.is_some() || q.after_context.is_some() {
            warnings.push(format!(
                "contextLines={context_lines} replaces beforeContext/afterContext"
            ));
        }
        (context_lines, context_lines)
    } else {
        (q.before_context.unwrap_or(0), q.after_context.unwrap_or(0))
    };
    let passthru = on(q.passthru);
    if output != Output::Lines {
        if before > 0 || after > 0 {
            warnings.push("context lines are ignored in count and file-list modes".to_string());
        }
        if passthru {
            warnings.push("passthru is ignored in count and file-list modes".to_string());
        }
        return (0, 0, false);
    }
    if passthru && (before > 0 || after > 0) {
        warnings
            .push("passthru already lists every line; context settings are ignored".to_string());
        return (0, 0, true);
    }
    (before, after, passthru)
}

/// Flags that have no effect in this combination, or at all, each with a warning.
fn warn_ignored_flags(q: &Query, warnings: &mut Vec<String>) {
    if on(q.multiline_dotall) && !on(q.multiline) {
        warnings.push(
            "multilineDotall only has an effect together with multiline=true; it was ignored"
                .to_string(),
        );
    }
    if on(q.perl_regex) && on(q.no_unicode) {
        warnings.push(
            "noUnicode is not supported with perlRegex; Unicode-aware matching was kept"
                .to_string(),
        );
    }
    if q.mmap == Some(true) {
        warnings.push("mmap=true was not honoured: files are always read with buffered reads, so a file that shrinks mid-search cannot fault the server".to_string());
    }
}
