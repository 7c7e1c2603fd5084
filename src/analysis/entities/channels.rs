//! Channels and tags a request names with a hash: `#deploys`, `#data-team`, `#MondayMotivation`.
//! A chat channel or a hashtag is a value a tool takes (`channel`, `hashtag`), and no topic
//! word: "post in #deploys" asks for no deployment tool, "#incidents" for no incident tracker.
//! A hash before digits is an issue number (`#12`), and one after a letter is part of a word
//! ("C#", "F#").

use regex::Regex;
use std::ops::Range;
use std::sync::OnceLock;

fn channel_pattern() -> &'static Regex {
    static P: OnceLock<Regex> = OnceLock::new();
    P.get_or_init(|| {
        Regex::new(r#"(?:^|[\s(\[`'",;:])(#[A-Za-z][\w-]*(?:\.[\w-]+)*)"#)
            .expect("channel pattern compiles")
    })
}

/// Spans of the channels and hashtags in `text`, the hash included.
pub(super) fn channels(text: &str) -> Vec<Range<usize>> {
    channel_pattern()
        .captures_iter(text)
        .filter_map(|c| c.get(1))
        .map(|m| m.range())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        channels(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn hashed_names_are_channels() {
        assert_eq!(
            found("post in #deploys that api v1.4 is live; copy #data-team."),
            vec!["#deploys", "#data-team"]
        );
        assert_eq!(
            found("tweets with the hashtag #MondayMotivation"),
            vec!["#MondayMotivation"]
        );
        assert_eq!(found("#general: standup moved"), vec!["#general"]);
    }

    #[test]
    fn issue_numbers_languages_and_anchors_are_not() {
        for text in [
            "close issue #12",
            "port it to C# or F#",
            "see https://example.com/docs#install",
            "a # comment",
        ] {
            assert_eq!(found(text), Vec::<&str>::new(), "{text}");
        }
    }
}
