//! The answer: files capped by maxFiles, one page of them, each file's matches, pagination,
//! statistics and hints; a page longer than the output budget is cut into character windows
//! (see `window`). Empty results say what most likely hid the matches.

use super::engine::{FileResult, Searched, SEARCH_DEADLINE};
use super::options::{BinaryFiles, Case, Options, Output, Sort};
use crate::exec::outcome::Outcome;
use crate::exec::page::ListPage;
use crate::exec::sandbox::Sandbox;
use serde_json::{json, Map, Value};
use std::time::Duration;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// Problems listed one by one before the rest are summarised.
const LISTED_PROBLEMS: usize = 5;

pub(crate) struct Run<'a> {
    pub o: &'a Options,
    pub sandbox: &'a Sandbox,
    pub engine: &'static str,
    pub budget: usize,
    pub elapsed: Duration,
    pub warnings: Vec<String>,
}

fn rfc3339(t: std::time::SystemTime) -> Option<String> {
    OffsetDateTime::from(t).format(&Rfc3339).ok()
}

pub(super) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl Run<'_> {
    pub fn render(mut self, mut s: Searched) -> Outcome {
        let o = self.o;
        self.add_search_warnings(&s);
        let matched_files = s.files.len();
        let matched_count: u64 = s.files.iter().map(|f| f.count).sum();
        if let Some(max) = o.max_files {
            if s.files.len() > max {
                self.warnings.push(format!("{matched_files} files qualified; maxFiles={max} kept the first {max} in {} order", o.sort.name()));
                s.files.truncate(max);
            }
        }
        let total_files = s.files.len();
        let total_count: u64 = s.files.iter().map(|f| f.count).sum();
        let mut data = Map::new();
        if total_files == 0 {
            return self.empty(data, &s);
        }
        let list = ListPage::new(total_files, o.file_page, o.files_per_page);
        let (page, total_pages) = (list.number, list.pages);
        let pagination = list.to_json("filesPerPage", "totalFiles");
        if list.is_past_end() {
            data.insert("pagination".into(), pagination);
            let mut hints = vec![format!("filePageNumber={page} is past the last page ({total_pages}); use filePageNumber=1..{total_pages}")];
            hints.extend(self.totals_hint(total_files, total_count));
            return self.finish_empty(data, &s, hints);
        }
        let shown = &s.files[list.range()];
        let entries: Vec<Value> = shown.iter().map(|f| self.file_entry(f)).collect();
        let (files, window) = match self.window(entries) {
            Ok(w) => w,
            Err(hint) => {
                data.insert("pagination".into(), pagination);
                return self.finish_empty(data, &s, vec![hint]);
            }
        };

        let mut hints = vec![format!(
            "File page {page}/{total_pages} (showing {} of {total_files} files)",
            shown.len()
        )];
        hints.extend(self.totals_hint(total_files, total_count));
        if let Some(w) = &window {
            hints.extend(w.hints.iter().cloned());
        }
        let window_more = window.as_ref().is_some_and(|w| w.has_more);
        if list.has_more() {
            let then = if window_more {
                " (after the remaining character windows of this page)"
            } else {
                ""
            };
            hints.push(format!("Next: filePageNumber={}{then}", page + 1));
        } else if !window_more {
            hints.push("Final page".to_string());
        }
        hints.extend(self.follow_up_hints(shown));

        data.insert("files".into(), Value::Array(files));
        data.insert("searchEngine".into(), json!(self.engine));
        data.insert("pagination".into(), pagination);
        if let Some(w) = window {
            data.insert("outputPagination".into(), w.pagination);
        }
        if o.include_stats {
            data.insert("stats".into(), self.stats(&s, matched_files, matched_count));
        }
        if o.debug {
            data.insert("debug".into(), self.debug(&s));
        }
        data.insert("warnings".into(), json!(self.warnings));
        data.insert("hints".into(), json!(hints));
        Outcome::found(Value::Object(data))
    }

    fn file_entry(&self, f: &FileResult) -> Value {
        let o = self.o;
        let mut e = Map::new();
        e.insert("path".into(), json!(self.sandbox.display(&f.path)));
        e.insert("matchCount".into(), json!(f.count));
        let matches: Vec<Value> = if o.keeps_lines() {
            f.hits
                .iter()
                .map(|h| {
                    let mut m = Map::new();
                    m.insert("value".into(), json!(h.value));
                    m.insert("line".into(), json!(h.line));
                    if let Some(c) = h.column {
                        m.insert("column".into(), json!(c));
                    }
                    if h.context {
                        m.insert("context".into(), json!(true));
                    }
                    Value::Object(m)
                })
                .collect()
        } else {
            Vec::new()
        };
        e.insert("matches".into(), Value::Array(matches));
        let listed = f.hits.iter().filter(|h| !h.context).count() as u64;
        if o.keeps_lines() && !f.binary && f.count > listed {
            let per = o.shown_per_file as u64;
            e.insert(
                "pagination".into(),
                json!({
                    "currentPage": 1,
                    "totalPages": f.count.div_ceil(per.max(1)),
                    "matchesPerPage": per,
                    "totalMatches": f.count,
                    "hasMore": true,
                }),
            );
        }
        if f.binary && o.binary == BinaryFiles::Binary {
            e.insert("binary".into(), json!(true));
        }
        if o.show_modified {
            if let Some(m) = f.modified.and_then(rfc3339) {
                e.insert("modified".into(), json!(m));
            }
        }
        Value::Object(e)
    }

    fn totals_hint(&self, files: usize, count: u64) -> Option<String> {
        Some(match self.o.output {
            Output::FilesWithMatches => {
                format!("{} contain a match", plural(files, "file", "files"))
            }
            Output::FilesWithoutMatch => {
                format!("{} contain no match", plural(files, "file", "files"))
            }
            Output::CountMatches => format!(
                "Total: {count} matches across {}",
                plural(files, "file", "files")
            ),
            Output::CountLines | Output::Lines => {
                let what = if self.o.invert {
                    "non-matching lines"
                } else {
                    "matching lines"
                };
                format!(
                    "Total: {count} {what} across {}",
                    plural(files, "file", "files")
                )
            }
        })
    }

    fn follow_up_hints(&self, shown: &[FileResult]) -> Vec<String> {
        let o = self.o;
        let mut hints = Vec::new();
        if o.keeps_lines() {
            hints.push("files[].matches[].line is the 1-based line number: pass it as lineHint (with the symbol name) to lspGotoDefinition, lspFindReferences or lspCallHierarchy".to_string());
            hints.push(
                "column is the 0-based character offset of the first match on that line"
                    .to_string(),
            );
            if o.before > 0 || o.after > 0 {
                hints.push(format!(
                    "With context, value holds up to {} before and {} after the match, joined by newlines; line is still the matching line",
                    plural(o.before, "line", "lines"),
                    plural(o.after, "line", "lines")
                ));
            }
            let capped = shown
                .iter()
                .filter(|f| {
                    !f.binary && f.count > f.hits.iter().filter(|h| !h.context).count() as u64
                })
                .count();
            if capped > 0 {
                hints.push(format!(
                    "{} more matches than listed (at most {} per file): narrow the pattern or path, raise matchesPerPage (up to 100), or read one file with localGetFileContent matchString",
                    plural(capped, "file has", "files have"),
                    o.shown_per_file
                ));
            }
            hints.push("To read the code around a hit, call localGetFileContent with the path and matchString, or startLine/endLine".to_string());
        } else {
            hints.push("To see the matching lines of a file, search it again without count/filesOnly (or with mode=paginated)".to_string());
        }
        let binary = shown
            .iter()
            .filter(|f| f.binary && o.binary == BinaryFiles::Binary)
            .count();
        if binary > 0 {
            hints.push(format!(
                "{} binary: listed without their bytes (binaryFiles=text would show them as text)",
                plural(binary, "match is", "matches are")
            ));
        }
        hints
    }

    fn add_search_warnings(&mut self, s: &Searched) {
        let o = self.o;
        if s.timed_out {
            self.warnings.push(format!(
                "The search stopped after {} s; results are partial. Narrow path, set type or include, or exclude large directories",
                SEARCH_DEADLINE.as_secs()
            ));
        }
        if s.clipped_values > 0 {
            self.warnings.push(format!(
                "{} cut to matchContentLength={} characters",
                plural(s.clipped_values, "line was", "lines were"),
                o.content_chars
            ));
        }
        if s.missing_times > 0 && o.sort != Sort::Path {
            self.warnings.push(format!(
                "{} no {} time on this file system; they are listed last",
                plural(s.missing_times, "file has", "files have"),
                o.sort.name()
            ));
        }
        if !o.no_messages && !s.problems.is_empty() {
            let mut listed: Vec<&str> = s
                .problems
                .iter()
                .take(LISTED_PROBLEMS)
                .map(String::as_str)
                .collect();
            let more = s.problems.len().saturating_sub(LISTED_PROBLEMS);
            let tail = if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            };
            listed.dedup();
            self.warnings
                .push(format!("Could not read: {}{tail}", listed.join("; ")));
        }
    }

    fn stats(&self, s: &Searched, matched_files: usize, total: u64) -> Value {
        json!({
            "filesSearched": s.files_searched,
            "filesMatched": matched_files,
            "totalMatches": total,
            "bytesSearched": s.bytes_searched,
            "binaryFilesSkipped": s.binary_skipped.len(),
            "protectedEntriesHidden": s.protected_hidden,
            "elapsedMs": self.elapsed.as_millis() as u64,
        })
    }

    fn debug(&self, s: &Searched) -> Value {
        let o = self.o;
        json!({
            "engine": self.engine,
            "pattern": o.pattern,
            "case": format!("{:?}", o.case).to_lowercase(),
            "walk": {
                "respectIgnoreFiles": !o.no_ignore,
                "hidden": o.hidden,
                "followSymlinks": o.follow_symlinks,
                "type": o.file_type,
                "include": o.include,
                "exclude": o.exclude,
                "excludeDir": o.exclude_dir,
            },
            "binarySkipped": s.binary_skipped.iter().take(20).map(|p| self.sandbox.display(p)).collect::<Vec<_>>(),
            "unreadable": s.problems.iter().take(20).collect::<Vec<_>>(),
            "protectedEntriesHidden": s.protected_hidden,
        })
    }

    fn empty(self, data: Map<String, Value>, s: &Searched) -> Outcome {
        let o = self.o;
        let mut hints = Vec::new();
        if o.output == Output::FilesWithoutMatch {
            hints.push(format!(
                "Every one of the {} searched contains the pattern",
                plural(s.files_searched, "file", "files")
            ));
        } else if s.files_searched == 0 {
            hints.push(format!(
                "No file was searched under '{}': check that the path holds text files",
                o.path
            ));
            let mut filters = Vec::new();
            if let Some(t) = &o.file_type {
                filters.push(format!("type={t}"));
            }
            if !o.include.is_empty() {
                filters.push(format!("include={:?}", o.include));
            }
            if !o.exclude.is_empty() || !o.exclude_dir.is_empty() {
                filters.push("exclude/excludeDir".to_string());
            }
            if !filters.is_empty() {
                hints.push(format!(
                    "These filters may exclude every file: {}",
                    filters.join(", ")
                ));
            }
        } else {
            hints.push(format!(
                "'{}' matched nothing in {} searched",
                o.pattern,
                plural(s.files_searched, "file", "files")
            ));
        }
        if o.output != Output::FilesWithoutMatch {
            let pattern_has_upper = o.pattern.chars().any(char::is_uppercase);
            match o.case {
                Case::Smart if pattern_has_upper => hints.push("Smart case made the search case-sensitive because the pattern has an uppercase letter; set caseInsensitive=true to ignore case".to_string()),
                Case::Sensitive => hints.push("The search was case-sensitive; set caseInsensitive=true to ignore case".to_string()),
                _ => {}
            }
            if !o.fixed_string && o.pattern.chars().any(|c| "()[]{}.*+?^$|\\".contains(c)) {
                hints.push("The pattern is read as a regex; set fixedString=true to match the text literally".to_string());
            }
            if o.whole_word || o.line_regexp {
                hints.push("wholeWord/lineRegexp only accept matches on word or line boundaries; drop them to accept partial matches".to_string());
            }
            if o.file_type.is_some()
                || !o.include.is_empty()
                || !o.exclude.is_empty()
                || !o.exclude_dir.is_empty()
            {
                hints.push("Remove type/include/exclude/excludeDir filters one at a time to see which one hides the results".to_string());
            }
        }
        if !o.hidden {
            hints.push(
                "Hidden files and directories were skipped; set hidden=true to search them"
                    .to_string(),
            );
        }
        if !o.no_ignore {
            hints.push("Files ignored by .gitignore/.ignore/.rgignore were skipped; set noIgnore=true to search them".to_string());
        }
        if !s.binary_skipped.is_empty() {
            hints.push(format!(
                "{} skipped; binaryFiles=text searches them as text",
                plural(
                    s.binary_skipped.len(),
                    "binary file was",
                    "binary files were"
                )
            ));
        }
        hints.push("Try a broader or related term, or a parent directory; localFindFiles finds files by name and localViewStructure shows what the path holds".to_string());
        self.finish_empty(data, s, hints)
    }

    fn finish_empty(
        self,
        mut data: Map<String, Value>,
        s: &Searched,
        hints: Vec<String>,
    ) -> Outcome {
        data.insert("searchEngine".into(), json!(self.engine));
        if self.o.include_stats {
            data.insert("stats".into(), self.stats(s, 0, 0));
        }
        if self.o.debug {
            data.insert("debug".into(), self.debug(s));
        }
        data.insert("warnings".into(), json!(self.warnings));
        data.insert("hints".into(), json!(hints));
        Outcome::empty(Value::Object(data))
    }
}
