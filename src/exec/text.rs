//! Lines of a file as an editor numbers them, shared by the tools that quote files by line
//! (localGetFileContent, the LSP tools): one definition, so a line number one tool reports
//! is the line another reads.

/// A file's lines: split on `\n`, a final terminator does not start another line, and a
/// trailing `\r` is not part of a line. Unlike `str::lines`, a lone `\r` ending the last line
/// is dropped too, as on every other line.
pub(crate) fn split_lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_like_an_editor_counts_them() {
        assert_eq!(split_lines(""), Vec::<&str>::new());
        assert_eq!(split_lines("a"), ["a"]);
        assert_eq!(split_lines("a\n"), ["a"]);
        assert_eq!(split_lines("a\n\n"), ["a", ""]);
        assert_eq!(split_lines("a\r\nb\r\n\n"), ["a", "b", ""]);
        assert_eq!(split_lines("\n"), [""]);
        assert_eq!(split_lines("a\r"), ["a"]);
    }
}
