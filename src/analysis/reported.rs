//! Reported speech: what a request asks to say to someone ("let the team know on Slack that
//! the helm install finished", "post to #ops saying the deploy is green"). The message is a
//! value to pass, like quoted text, not the task: a tool named like a word of it ("helm")
//! was not asked for. Nothing here knows a tool; the cues are English verbs of telling and
//! the words that open a clause.

use super::lowercase_words;
use std::ops::Range;

/// Verbs whose object can be a message, space-separated. "know" counts after "let" ("let
/// them know that").
const TELLING: &str = "tell notify inform announce post send message ping remind say alert warn email e-mail text write reply broadcast know";

/// Words that open a message after its verb and addressee.
const OPENERS: &[&str] = &["that", "saying"];

/// Words that start a clause after "that", space-separated, so that "that" is a conjunction
/// ("tell them that the build broke") and not a determiner ("send that file").
const CLAUSE_STARTS: &str = "the a an our my your their his her its we i you it they he she this these those there everyone everything all nothing no someone";

/// How many words may stand between the verb and the word that opens the message (the
/// addressee and channel: "let the team know on Slack that").
const ADDRESSEE_WORDS: usize = 6;

/// Byte spans of the messages a request asks to send: from the word after the opener to the
/// end of its sentence.
pub(super) fn reported_spans(text: &str) -> Vec<Range<usize>> {
    let (words, lower) = lowercase_words(text);
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let telling = is_one_of(TELLING, &lower[i])
            && (lower[i] != "know" || lower[i.saturating_sub(4)..i].iter().any(|w| w == "let"));
        if !telling {
            i += 1;
            continue;
        }
        let opener = (i + 1..words.len().min(i + 2 + ADDRESSEE_WORDS))
            .take_while(|&j| !ends_sentence(&text[words[j - 1].end..words[j].start]))
            .find(|&j| {
                OPENERS.contains(&lower[j].as_str())
                    && lower
                        .get(j + 1)
                        .is_some_and(|next| lower[j] == "saying" || is_one_of(CLAUSE_STARTS, next))
            });
        let Some(j) = opener else {
            i += 1;
            continue;
        };
        let start = words[j + 1].start;
        let mut end = words[j + 1].end;
        let mut k = j + 2;
        while k < words.len() && !ends_sentence(&text[end..words[k].start]) {
            end = words[k].end;
            k += 1;
        }
        out.push(start..end);
        i = k;
    }
    out
}

/// Whether `word` is one of the space-separated `words`.
fn is_one_of(words: &str, word: &str) -> bool {
    words.split(' ').any(|w| w == word)
}

/// Whether the text between two words ends a sentence (a message runs over commas).
fn ends_sentence(between: &str) -> bool {
    between.contains(['.', '?', '!', ';', '\n'])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(text: &str) -> Vec<&str> {
        reported_spans(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn a_message_runs_from_its_opener_to_the_sentence_end() {
        assert_eq!(
            messages("let the team know on Slack that the helm install for api-staging finished"),
            ["the helm install for api-staging finished"]
        );
        assert_eq!(
            messages("post to #ops saying the deploy is green, thanks. Then close the ticket"),
            ["the deploy is green, thanks"]
        );
        assert_eq!(
            messages("tell the Discord channel that our npm package is published"),
            ["our npm package is published"]
        );
    }

    #[test]
    fn that_as_a_determiner_or_far_from_a_verb_opens_nothing() {
        assert!(messages("send that file to Bob").is_empty());
        assert!(messages("I know that function is slow").is_empty());
        assert!(messages("find the repository that the docs mention").is_empty());
        assert!(
            messages("post the release notes. I think that the helm chart is stale").is_empty()
        );
    }
}
