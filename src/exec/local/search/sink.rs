//! One file's search: ripgrep's searcher configured from the query, and the `Collect` sink
//! that keeps a count of every match but text only for the matches that will be shown (with
//! context, only the lines their blocks need), each line clipped as it arrives.

use super::matcher::AnyMatcher;
use super::options::{BinaryFiles, Options, Output};
use super::text::{clip_line, line_text};
use crate::exec::sandbox::{OpenError, Sandbox};
use grep_matcher::Matcher;
use grep_searcher::{
    BinaryDetection, Encoding, MmapChoice, Searcher, SearcherBuilder, Sink, SinkContext,
    SinkContextKind, SinkFinish, SinkMatch,
};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// One line of a file's result.
#[derive(Debug, Clone)]
pub(crate) struct Hit {
    pub line: u64,
    /// 0-based character offset of the first match on the line.
    pub column: Option<usize>,
    pub value: String,
    /// A non-matching line that passthru lists.
    pub context: bool,
}

pub(super) fn searcher(o: &Options) -> Searcher {
    let mut sb = SearcherBuilder::new();
    sb.line_number(true)
        .multi_line(o.multiline)
        .invert_match(o.invert)
        .before_context(o.before)
        .after_context(o.after)
        .passthru(o.passthru)
        .memory_map(MmapChoice::never())
        .binary_detection(match o.binary {
            BinaryFiles::WithoutMatch => BinaryDetection::quit(b'\x00'),
            BinaryFiles::Text => BinaryDetection::none(),
            BinaryFiles::Binary => BinaryDetection::convert(b'\x00'),
        })
        .max_matches(match o.output {
            Output::FilesWithMatches | Output::FilesWithoutMatch => Some(1),
            _ => o.stop_after,
        });
    match o.encoding.as_deref() {
        Some(label) if label.eq_ignore_ascii_case("none") => {
            sb.bom_sniffing(false);
        }
        // Checked by `check_encoding` before the search starts.
        Some(label) => {
            sb.encoding(Encoding::new(label).ok());
        }
        None => {}
    }
    sb.build()
}

/// One file's search.
pub(super) struct Collected {
    pub count: u64,
    pub hits: Vec<Hit>,
    pub binary: bool,
    pub bytes: u64,
    pub clipped: usize,
    /// The deadline passed while this file was searched; its counts are partial.
    pub timed_out: bool,
}

/// Searches one file, giving up at `deadline` (checked at every match, so a huge file full of
/// hits cannot hold the query past it).
pub(super) fn search_file(
    sandbox: &Sandbox,
    s: &mut Searcher,
    matcher: &AnyMatcher,
    o: &Options,
    path: &Path,
    deadline: Instant,
) -> Result<Collected, String> {
    let mut sink = Collect {
        o,
        matcher,
        deadline,
        timed_out: false,
        count: 0,
        hits: Vec::new(),
        lines: BTreeMap::new(),
        spans: Vec::new(),
        binary: false,
        bytes: 0,
        clipped: 0,
    };
    // Opened through the sandbox (no link followed, the open file checked again); the walk's
    // view of the file may be stale by now.
    let shown = sandbox.display(path);
    // With followSymlinks the walk hands over links (checked by its filter); they are opened
    // at their target, since the safe open follows no link in the last component.
    let real = if o.follow_symlinks {
        std::fs::canonicalize(path).map_err(|e| e.kind().to_string())?
    } else {
        path.to_path_buf()
    };
    let (file, _) = sandbox.open(&real, &shown).map_err(|e| match e {
        OpenError::Io(e) => e.kind().to_string(),
        OpenError::Refused(e) => e.message,
    })?;
    s.search_file(matcher, &file, &mut sink)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::Other => e.to_string(),
            kind => kind.to_string(),
        })?;
    let kept = sink.hits.iter_mut().map(|h| (h.line, &mut h.value));
    super::pieces::redact_pieces(
        path,
        kept.chain(sink.lines.iter_mut().map(|(n, v)| (*n, v))),
    );
    let hits = if o.before > 0 || o.after > 0 {
        sink.blocks()
    } else {
        std::mem::take(&mut sink.hits)
    };
    Ok(Collected {
        count: sink.count,
        hits,
        binary: sink.binary,
        bytes: sink.bytes,
        clipped: sink.clipped,
        timed_out: sink.timed_out,
    })
}

/// The sink for one file.
struct Collect<'a> {
    o: &'a Options,
    matcher: &'a AnyMatcher,
    deadline: Instant,
    timed_out: bool,
    count: u64,
    hits: Vec<Hit>,
    /// With context: the (already clipped) text of every line a kept block needs.
    lines: BTreeMap<u64, String>,
    /// With context: each kept match's first and last line and its column.
    spans: Vec<(u64, u64, Option<usize>)>,
    binary: bool,
    bytes: u64,
    clipped: usize,
}

impl Collect<'_> {
    fn with_context(&self) -> bool {
        self.o.before > 0 || self.o.after > 0
    }

    fn kept(&self) -> usize {
        if self.with_context() {
            self.spans.len()
        } else {
            self.hits.len()
        }
    }

    fn clip(&mut self, text: &str, at: Option<(usize, usize)>) -> String {
        let (value, cut) = clip_line(text, at, self.o.content_chars);
        self.clipped += usize::from(cut);
        value
    }

    /// Context blocks: the lines around each kept match, joined, with `line` the match line.
    fn blocks(&mut self) -> Vec<Hit> {
        let (before, after) = (self.o.before as u64, self.o.after as u64);
        self.spans
            .iter()
            .map(|&(first, last, column)| {
                let from = first.saturating_sub(before).max(1);
                let value: Vec<&str> = (from..=last + after)
                    .filter_map(|n| self.lines.get(&n).map(String::as_str))
                    .collect();
                Hit {
                    line: first,
                    column,
                    value: value.join("\n"),
                    context: false,
                }
            })
            .collect()
    }
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _s: &Searcher, m: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        if Instant::now() > self.deadline {
            self.timed_out = true;
            return Ok(false);
        }
        let first = m.line_number().unwrap_or(0);
        if let Some(more) = self.counted(m) {
            return Ok(more);
        }
        // binaryFiles=binary: a binary file is reported as matching, never its bytes.
        if self.binary || self.kept() >= self.o.shown_per_file {
            return Ok(true);
        }
        let bytes = trim_terminator(m.bytes());
        let found = if self.o.invert {
            None
        } else {
            self.matcher
                .find_at(bytes, 0)
                .ok()
                .flatten()
                .map(|m| (m.start(), m.end()))
        };
        let (column, texts) = self.line_texts(bytes, found, first);
        if self.with_context() {
            let last = texts.last().map_or(first, |(n, _)| *n);
            self.spans.push((first, last, column));
            self.lines.extend(texts);
        } else {
            let value = texts
                .into_iter()
                .map(|(_, t)| t)
                .collect::<Vec<_>>()
                .join("\n");
            self.hits.push(Hit {
                line: first,
                column,
                value,
                context: false,
            });
        }
        Ok(true)
    }

    fn context(&mut self, _s: &Searcher, c: &SinkContext<'_>) -> Result<bool, std::io::Error> {
        let n = c.line_number().unwrap_or(0);
        if self.binary {
            return Ok(true);
        }
        if *c.kind() == SinkContextKind::Other {
            // passthru: every line is listed, up to the per-file limit.
            if self.hits.len() < self.o.shown_per_file {
                let value = self.clip(&line_text(trim_terminator(c.bytes())), None);
                self.hits.push(Hit {
                    line: n,
                    column: None,
                    value,
                    context: true,
                });
            }
            return Ok(true);
        }
        let last_end = self.spans.last().map_or(0, |s| s.1);
        // Before-context may belong to a match still to be kept; after-context to the last.
        if self.spans.len() < self.o.shown_per_file || n <= last_end + self.o.after as u64 {
            let value = self.clip(&line_text(trim_terminator(c.bytes())), None);
            self.lines.insert(n, value);
        }
        Ok(true)
    }

    fn binary_data(&mut self, _s: &Searcher, _offset: u64) -> Result<bool, std::io::Error> {
        self.binary = true;
        Ok(true)
    }

    fn finish(&mut self, _s: &Searcher, f: &SinkFinish) -> Result<(), std::io::Error> {
        self.bytes = f.byte_count();
        Ok(())
    }
}

impl Collect<'_> {
    /// Counts the match in the count and file-list modes; `Some` tells whether to go on,
    /// `None` that the lines are kept (line output).
    fn counted(&mut self, m: &SinkMatch<'_>) -> Option<bool> {
        match self.o.output {
            Output::FilesWithMatches | Output::FilesWithoutMatch => {
                self.count = 1;
                Some(false)
            }
            Output::CountLines => {
                self.count += 1;
                Some(true)
            }
            Output::CountMatches => {
                let n = if self.o.invert {
                    1
                } else {
                    self.matcher
                        .matches_in(trim_terminator(m.bytes()))
                        .len()
                        .max(1)
                };
                self.count += n as u64;
                Some(true)
            }
            Output::Lines => {
                self.count += 1;
                None
            }
        }
    }

    /// Each line of a (possibly multi-line) match, numbered from `first` and clipped around
    /// the first match, with that match's column in characters.
    fn line_texts(
        &mut self,
        bytes: &[u8],
        found: Option<(usize, usize)>,
        first: u64,
    ) -> (Option<usize>, Vec<(u64, String)>) {
        let mut column = None;
        let mut texts = Vec::new();
        let mut offset = 0;
        for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let text = line_text(raw);
            // The first match's position within this line, in characters.
            let at = found
                .filter(|&(s, _)| s >= offset && s <= offset + raw.len())
                .map(|(s, e)| {
                    let start = String::from_utf8_lossy(&raw[..s - offset]).chars().count();
                    let len = String::from_utf8_lossy(&bytes[s..e.min(bytes.len())])
                        .chars()
                        .count();
                    (start, len)
                });
            column = column.or(at.map(|(s, _)| s));
            texts.push((first + i as u64, self.clip(&text, at)));
            offset += raw.len() + 1;
        }
        (column, texts)
    }
}

fn trim_terminator(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes.strip_suffix(b"\r").unwrap_or(bytes)
}
