//! The texts a search reads from a request: the request itself for exact names and
//! suggestions, and for keyword and vector retrieval the request with negated phrases left
//! out, a message it asks to send read as "text", and the values of some entity kinds
//! replaced by their kind's words (see `analysis::QueryAnalysis::masked`), so that a
//! repository named like a tool, a tool the request says not to use, or one named in the
//! message ("tell the team that the helm install finished") is no evidence for that tool;
//! and the words of paths and other values, which keyword retrieval reads as no evidence of
//! a tool's name (`UNNAMED`), nor are the words that stand for masked values.

use crate::analysis::{Affordances, EntityKind, Locality, QueryAnalysis};
use crate::catalog::{split_identifier, ToolRecord};
use crate::index::keyword::{terms_only_within, terms_outside, KeywordQuery};
use std::collections::HashSet;
use std::ops::Range;

/// What keyword and vector retrieval read.
pub(crate) struct QueryTexts {
    pub(crate) keyword: String,
    /// The analysed terms of `keyword` met only inside values of `UNNAMED` kinds or only in
    /// the words that stand for masked values: no evidence of a tool's name
    /// (`KeywordQuery::unnamed`).
    pub(crate) unnamed: Vec<String>,
    pub(crate) embed: String,
}

/// Kinds whose values keyword retrieval reads as their kind's word: names of things (a
/// repository, a package, a URL, an address, a channel) say nothing about the task, and a
/// tool named like one of them is not what was asked for. Paths and symbols stay: a file's
/// name and extension ("Dockerfile", ".py") are often the task's own words (though a
/// path's words name no tool, `UNNAMED`).
const KEYWORD_MASKED: &[EntityKind] = &[
    EntityKind::Repository,
    EntityKind::Package,
    EntityKind::Url,
    EntityKind::Email,
    EntityKind::Revision,
    EntityKind::Image,
    EntityKind::Setting,
    EntityKind::Channel,
];

/// Kinds whose values keyword retrieval reads in every field but the names: a file's name
/// says what the task works on ("docker-compose.yml"), so its words are the task's words,
/// but a tool named like one of them was not asked for. The words are found in the request
/// itself, less what the keyword text leaves out. Not symbols: a function named in code
/// form is often the tool itself ("call `predict_house_price`"), and reading symbols so
/// cost bfcl 0.1 NDCG@5 and its multi-tool search 1.1 on the tune halves. Paths,
/// directories, patterns and SQL: the agent requests' multi-tool NDCG@5 +0.1, no other
/// figure moved.
const UNNAMED: &[EntityKind] = &[
    EntityKind::Path,
    EntityKind::Directory,
    EntityKind::Regex,
    EntityKind::Sql,
];

/// Kinds whose values the query's embedding leaves out as well, with quoted text: a sentence
/// model reads "src/db/pool.rs", "PR #12" or the word "resilience" in a request for a
/// dictionary as topic words. Quoted text, on the tune halves: apibank +0.8, agent requests
/// +0.6, bfcl +0.1, MetaTool 0.0 NDCG@5 hybrid (MetaTool's quoted whole requests are no
/// values, see `analysis::quoted_spans`). On the tune halves masking these for the
/// embedding took the agent requests' hybrid NDCG@5 from 82.6 to 84.8 and moved no other
/// set by more than 0.1; masking them for keywords too lost 0.5 there.
const EMBED_MASKED: &[EntityKind] = &[
    EntityKind::Repository,
    EntityKind::Package,
    EntityKind::Url,
    EntityKind::Email,
    EntityKind::Path,
    EntityKind::Directory,
    EntityKind::FileType,
    EntityKind::PullRequest,
    EntityKind::Issue,
    EntityKind::Line,
    EntityKind::Regex,
    EntityKind::Sql,
    EntityKind::Revision,
    EntityKind::Image,
    EntityKind::Setting,
    EntityKind::Channel,
];

impl QueryTexts {
    pub(crate) fn of(query: &str, analysis: &QueryAnalysis, topics: &WebTopics) -> QueryTexts {
        let text = |kinds: &[EntityKind], quotes: bool| {
            let masked = analysis.masked(query, kinds, quotes);
            // Products left out of the masked text, which stays as it is when the request
            // names none.
            let masked = match analysis.locality {
                Some(Locality::Web) => topics
                    .left_out(masked.as_deref().unwrap_or(query))
                    .or(masked),
                _ => masked,
            };
            masked
                .filter(|m| !m.trim().is_empty())
                .unwrap_or_else(|| query.to_string())
        };
        let spans_of = |kinds: &[EntityKind]| -> Vec<Range<usize>> {
            let entities = analysis.entities.iter().filter(|e| kinds.contains(&e.kind));
            entities.map(|e| e.span.clone()).collect()
        };
        // What the keyword text leaves out of the request.
        let mut gone = spans_of(KEYWORD_MASKED);
        gone.extend(analysis.negated.iter().chain(&analysis.purposes).cloned());
        let keyword = text(KEYWORD_MASKED, false);
        let mut unnamed = terms_only_within(query, &spans_of(UNNAMED), &gone);
        // The words that stand for left-out values ("repository" for "rust-lang/cargo") are
        // the engine's, not the request's: a tool named with one was not asked for.
        let said = terms_outside(query, &gone);
        let standing_in = terms_outside(&keyword, &[]);
        unnamed.extend(
            standing_in
                .into_iter()
                .filter(|t| said.binary_search(t).is_err()),
        );
        unnamed.sort_unstable();
        unnamed.dedup();
        QueryTexts {
            keyword,
            unnamed,
            embed: text(EMBED_MASKED, true),
        }
    }

    /// What the keyword index is asked.
    pub(crate) fn keyword_query(&self) -> KeywordQuery<'_> {
        KeywordQuery {
            text: &self.keyword,
            unnamed: &self.unnamed,
        }
    }
}

/// The products tools are named for ("terraform" of terraform_plan, "ripgrep"), where those
/// tools work somewhere other than the web. In a request that points at the web ("search
/// the web for news about Terraform's license change") such a name is what to look up, not
/// a tool to use: the request's place rules that tool out. Left out of both texts, as a
/// repository's name is; the names of tools that do work on the web stay.
#[derive(Debug, Default)]
pub(crate) struct WebTopics(HashSet<String>);

/// The shortest product name left out: two letters ("gh", "fs") are as often other words.
const MIN_TOPIC_LEN: usize = 3;

impl WebTopics {
    /// The first word of each tool's name (its product), for tools whose place is known and
    /// is not the web, less every word of a web tool's name.
    pub(crate) fn of(tools: &[ToolRecord], affordances: &[Affordances]) -> WebTopics {
        let words = |t: &ToolRecord| -> Vec<String> {
            let mut w = split_identifier(&t.name);
            if w.is_empty() {
                w = split_identifier(&t.tool_id);
            }
            w.iter().map(|w| w.to_lowercase()).collect()
        };
        let mut web_words = HashSet::new();
        let mut products = HashSet::new();
        for (tool, a) in tools.iter().zip(affordances) {
            match a.locality {
                Some(Locality::Web) => web_words.extend(words(tool)),
                Some(_) => products.extend(words(tool).into_iter().next()),
                None => {}
            }
        }
        products.retain(|w| w.chars().count() >= MIN_TOPIC_LEN && !web_words.contains(w));
        WebTopics(products)
    }

    /// `text` without the words that name a product of `self` (with a possessive "'s"), or
    /// `None` when it names none.
    fn left_out(&self, text: &str) -> Option<String> {
        let names = |w: &str| {
            let core = w.trim_matches(|c: char| !c.is_alphanumeric());
            let core = core
                .strip_suffix("'s")
                .or_else(|| core.strip_suffix("’s"))
                .unwrap_or(core);
            self.0.contains(&core.to_lowercase())
        };
        if !text.split_whitespace().any(names) {
            return None;
        }
        let kept: Vec<&str> = text.split_whitespace().filter(|w| !names(w)).collect();
        Some(kept.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_things_are_no_keywords() {
        let q = "search issues in rust-lang/cargo about src/main.rs, without cloning it";
        let t = QueryTexts::of(q, &QueryAnalysis::of(q), &WebTopics::default());
        assert_eq!(t.keyword, "search issues in repository about src/main.rs,");
        assert_eq!(t.embed, "search issues in repository about file ,");
        let plain = "convert a PDF to text";
        let t = QueryTexts::of(plain, &QueryAnalysis::of(plain), &WebTopics::default());
        assert_eq!(t.keyword, plain);
    }

    /// "post in #deploys ..." had put a deployment tool first: a channel is a value, and
    /// what stands for it is the word a messaging tool's `channel` parameter shares.
    #[test]
    fn a_channel_reads_as_channel() {
        let q = "post in #deploys that api v1.4 is live";
        let a = QueryAnalysis::of(q);
        assert_eq!(a.kinds(), vec![EntityKind::Channel]);
        let t = QueryTexts::of(q, &a, &WebTopics::default());
        assert!(t.keyword.starts_with("post in channel"), "{}", t.keyword);
        assert!(t.embed.starts_with("post in channel"), "{}", t.embed);
    }

    #[test]
    fn quoted_values_leave_the_embedding_but_not_the_keywords() {
        let q = r#"give me the definition of the word "resilience""#;
        let t = QueryTexts::of(q, &QueryAnalysis::of(q), &WebTopics::default());
        assert_eq!(t.keyword, q);
        assert_eq!(t.embed, "give me the definition of the word text");
    }

    #[test]
    fn a_message_to_send_is_no_evidence_for_the_tools_it_names() {
        let q = "let the team know on Slack that the helm install for api-staging finished";
        let t = QueryTexts::of(q, &QueryAnalysis::of(q), &WebTopics::default());
        assert_eq!(t.keyword, "let the team know on Slack that text");
        assert_eq!(t.embed, "let the team know on Slack that text");
    }

    /// "look on the web for how people fixed 'cargo build' failing" had put a registry
    /// search named cargo first: in a request for the web, a product is the topic.
    #[test]
    fn a_product_named_in_a_request_for_the_web_is_its_topic() {
        use crate::catalog::mcp::{blank_record, parameters_of};
        let tool = |name: &str, description: &str, schema: serde_json::Value| {
            let mut t = blank_record(name.into(), name.into(), "c".into());
            t.description = description.into();
            t.parameters = parameters_of(&schema);
            t.input_schema = schema;
            t
        };
        let path =
            serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}});
        let tools = [
            tool("cargo_search", "searches crates", path.clone()),
            tool("go_doc", "shows docs", path.clone()),
            tool(
                "fetch_url",
                "fetches",
                serde_json::json!({"type": "object",
                "properties": {"url": {"type": "string"}}, "required": ["url"]}),
            ),
            tool("cargo_web", "runs a web search for crates", path.clone()),
            tool("pretty", "formats text", serde_json::json!({})),
        ];
        let affordances: Vec<Affordances> = tools.iter().map(Affordances::of).collect();
        let topics = WebTopics::of(&tools, &affordances);
        // "cargo" names a web tool too; "go" is too short; "pretty" works nowhere in particular.
        let mut words: Vec<&String> = topics.0.iter().collect();
        words.sort();
        assert!(words.is_empty(), "{words:?}");
        let topics = WebTopics::of(&tools[..2], &affordances[..2]);
        let q = "Cargo's build fails on the runner; look on the web for how people fixed it";
        let t = QueryTexts::of(q, &QueryAnalysis::of(q), &topics);
        assert_eq!(
            t.keyword,
            "build fails on the runner; look on the web for how people fixed it"
        );
        assert_eq!(t.embed, t.keyword);
        // Not a request for the web: the product may be the tool asked for.
        let q = "cargo search for an HTTP client";
        assert_eq!(QueryTexts::of(q, &QueryAnalysis::of(q), &topics).keyword, q);
    }

    /// A request for the web that named no product had been read whole: its URL's words
    /// ("kubernetes", "io") became keywords for the tools named like them.
    #[test]
    fn a_request_for_the_web_naming_no_product_keeps_its_masks() {
        let q = "read the page at https://kubernetes.io/docs/reference/ without a browser";
        let a = QueryAnalysis::of(q);
        assert_eq!(a.locality, Some(Locality::Web));
        let t = QueryTexts::of(q, &a, &WebTopics::default());
        assert_eq!(t.keyword, "read the page at url");
    }

    /// "read the environment block in docker-compose.yml" had put a tool named docker first.
    #[test]
    fn a_path_s_words_are_no_names() {
        let q = "read the environment block in docker-compose.yml, not in docker/cli";
        let t = QueryTexts::of(q, &QueryAnalysis::of(q), &WebTopics::default());
        assert_eq!(
            t.keyword,
            "read the environment block in docker-compose.yml,"
        );
        assert!(t.unnamed.iter().any(|w| w == "docker"), "{:?}", t.unnamed);
        assert!(!t.unnamed.iter().any(|w| w == "read" || w == "environ"));
        assert_eq!(t.keyword_query().unnamed, &t.unnamed[..]);
        let plain = "run the docker image";
        let t = QueryTexts::of(plain, &QueryAnalysis::of(plain), &WebTopics::default());
        assert!(t.unnamed.is_empty());
    }

    /// "search issues in rust-lang/cargo" had put a repository search first on the name
    /// word "repository", which the request never said: the placeholder stood in for it.
    #[test]
    fn a_placeholder_s_word_is_no_name() {
        let stem = |w: &str| terms_outside(w, &[]).remove(0);
        let q = "search issues in rust-lang/cargo about sparse registry timeouts";
        let t = QueryTexts::of(q, &QueryAnalysis::of(q), &WebTopics::default());
        assert!(t.keyword.contains(" repository "), "{}", t.keyword);
        assert!(t.unnamed.contains(&stem("repository")), "{:?}", t.unnamed);
        assert!(!t.unnamed.contains(&stem("issues")), "{:?}", t.unnamed);
        // Said by the request itself, the word names what it names.
        let q = "find the repository of rust-lang/cargo";
        let t = QueryTexts::of(q, &QueryAnalysis::of(q), &WebTopics::default());
        assert!(!t.unnamed.contains(&stem("repository")), "{:?}", t.unnamed);
    }

    #[test]
    fn a_request_that_is_all_negation_keeps_its_words() {
        let q = "without docker";
        let t = QueryTexts::of(q, &QueryAnalysis::of(q), &WebTopics::default());
        assert_eq!(t.keyword, q);
    }
}
