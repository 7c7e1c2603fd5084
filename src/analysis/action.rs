//! Whether a request asks to read something or to change it, and whether a tool reads or
//! changes: "check my meeting on Friday" reads, "cancel my meeting" changes; a tool named
//! `QueryMeeting` or marked `readOnlyHint` reads, one named `DeleteMeeting` changes. Read from
//! English verbs (and their agent nouns: a "scheduler" schedules), never from particular
//! tools. A request that mixes both ("find a hotel and book it") states neither.

use crate::catalog::{split_identifier, ToolRecord};
use serde_json::Value;

/// What a request asks done, or what a tool does, to the things it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Looks something up and leaves it as it was.
    Read,
    /// Creates, changes, sends or removes something.
    Change,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Read => "read",
            Action::Change => "change",
        }
    }

    /// The match reason of a tool that does what a request asks.
    pub fn agreement(self) -> String {
        let verb = self.as_str();
        format!("asks to {verb} something, and this tool {verb}s")
    }
}

/// Words of asking and looking up: verbs and their agent nouns, and the question words that
/// open a request for information.
const READ_WORDS: &[&str] = &[
    "check",
    "checks",
    "checker",
    "checking",
    "show",
    "shows",
    "find",
    "finds",
    "finder",
    "finding",
    "search",
    "searches",
    "searcher",
    "searching",
    "look",
    "lookup",
    "looking",
    "list",
    "lists",
    "lister",
    "listing",
    "get",
    "gets",
    "getter",
    "view",
    "views",
    "viewer",
    "read",
    "reads",
    "reader",
    "see",
    "display",
    "displays",
    "retrieve",
    "retrieves",
    "retriever",
    "retrieval",
    "fetch",
    "fetches",
    "fetcher",
    "query",
    "queries",
    "querying",
    "what",
    "whats",
    "which",
    "when",
    "where",
    "who",
    "whom",
    "info",
    "information",
    "details",
    "status",
    "locate",
    "locates",
    "locator",
    "browse",
    "inspect",
    "describe",
    "describes",
    "explore",
    "count",
    "counts",
    "counter",
];

/// Words of changing things: verbs of creating, editing, sending and removing, and their
/// agent nouns.
const CHANGE_WORDS: &[&str] = &[
    "add",
    "adds",
    "adding",
    "create",
    "creates",
    "creator",
    "creating",
    "creation",
    "set",
    "sets",
    "setter",
    "setting",
    "schedule",
    "schedules",
    "scheduler",
    "scheduling",
    "reschedule",
    "rescheduler",
    "book",
    "books",
    "booking",
    "booker",
    "reserve",
    "reserves",
    "reservation",
    "record",
    "records",
    "recorder",
    "recording",
    "delete",
    "deletes",
    "deleter",
    "deleting",
    "deletion",
    "remove",
    "removes",
    "remover",
    "removing",
    "removal",
    "cancel",
    "cancels",
    "canceling",
    "cancelling",
    "cancellation",
    "modify",
    "modifies",
    "modifier",
    "modifying",
    "change",
    "changes",
    "changer",
    "changing",
    "update",
    "updates",
    "updater",
    "updating",
    "edit",
    "edits",
    "editor",
    "editing",
    "send",
    "sends",
    "sender",
    "sending",
    "publish",
    "publishes",
    "publisher",
    "register",
    "registers",
    "write",
    "writes",
    "writer",
    "save",
    "saves",
    "upload",
    "uploads",
    "uploader",
    "rename",
    "renames",
    "insert",
    "inserts",
    "install",
    "installs",
    "installer",
    "uninstall",
    "submit",
    "submits",
    "transfer",
    "transfers",
    "pay",
    "pays",
    "payment",
    "buy",
    "buys",
    "purchase",
    "purchases",
    "enroll",
    "enrolls",
    "enrollment",
    "subscribe",
    "unsubscribe",
    "reset",
    "resets",
    "turn",
    "switch",
    "enable",
    "enables",
    "disable",
    "disables",
    "restart",
    "kill",
    "push",
    "pushes",
    "merge",
    "merges",
    "commit",
    "commits",
    "approve",
    "approves",
    "assign",
    "assigns",
    "archive",
    "archives",
    "replace",
    "replaces",
    "apply",
    "applies",
    "make",
    "makes",
    "maker",
    "close",
    "closes",
    "move",
    "moves",
    "mark",
    "marks",
    "deploy",
    "deploys",
    "stop",
    "stops",
];

/// The class of one (lowercase) word, if it has one.
fn class_of(word: &str) -> Option<Action> {
    if READ_WORDS.contains(&word) {
        Some(Action::Read)
    } else if CHANGE_WORDS.contains(&word) {
        Some(Action::Change)
    } else {
        None
    }
}

/// The one class the words state, or None when they state none or both.
fn stated<'a>(words: impl Iterator<Item = &'a str>) -> Option<Action> {
    let (mut read, mut change) = (false, false);
    for w in words {
        match class_of(w) {
            Some(Action::Read) => read = true,
            Some(Action::Change) => change = true,
            None => {}
        }
    }
    match (read, change) {
        (true, false) => Some(Action::Read),
        (false, true) => Some(Action::Change),
        _ => None,
    }
}

/// What a request asks, read from `text` with its values, quotes and negated phrases
/// already left out (see `QueryAnalysis::masked`).
pub fn request_action(text: &str) -> Option<Action> {
    let lower = text.to_lowercase();
    let words = || {
        lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
    };
    // A yes-or-no question that names no doing asks whether something is so: "has anyone
    // reported this?", "is there an official repository?". One with a verb of doing ("is it
    // possible to add text?") asks for that.
    let asks_whether = words().next().is_some_and(|w| YES_NO_OPENERS.contains(&w));
    if asks_whether && words().all(|w| class_of(w).is_none()) {
        return Some(Action::Read);
    }
    // A change word after a form of "be" describes a state ("how the defaults are set",
    // "where the flag is registered"), not a request to change it. It moved no request of
    // the tune halves beyond its score; it mends what the score details and match reasons
    // said ("asks to change something").
    let all: Vec<&str> = words().collect();
    let active = all.iter().enumerate().filter_map(|(i, w)| {
        let passive =
            i > 0 && STATE_BE.contains(&all[i - 1]) && class_of(w) == Some(Action::Change);
        (!passive).then_some(*w)
    });
    stated(active)
}

/// Forms of "be" after which a change word is a state: not "be" itself, which follows a
/// modal ("it should be set to 3") and asks for the change.
const STATE_BE: &[&str] = &["is", "are", "was", "were", "been", "being"];

/// Words that open a yes-or-no question about what is. Not "do" and "can", which as often
/// open a command ("do a backup") or a request to act ("can you book ...").
const YES_NO_OPENERS: &[&str] = &["is", "are", "was", "were", "has", "have", "does", "did"];

/// What a tool does: its annotations when they say, else the words of its name and id.
/// Descriptions are not read: their opening words describe what a tool is for as often as
/// what it does to things ("Get flights and book them"), and reading them cost MetaTool's
/// tune half 1.3 NDCG@5 and its two-tool requests 4 points of all gold in five.
pub fn tool_action(tool: &ToolRecord) -> Option<Action> {
    let hint = |key: &str| {
        tool.annotations
            .as_ref()
            .and_then(|a| a.get(key))
            .and_then(Value::as_bool)
    };
    match (hint("readOnlyHint"), hint("destructiveHint")) {
        (Some(true), _) => return Some(Action::Read),
        (Some(false), _) | (_, Some(true)) => return Some(Action::Change),
        _ => {}
    }
    let mut name_words = split_identifier(&tool.name);
    name_words.extend(split_identifier(&tool.tool_id));
    stated(name_words.iter().map(String::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_reads_and_a_cancellation_changes() {
        assert_eq!(
            request_action("Can you check my meeting on Friday?"),
            Some(Action::Read)
        );
        assert_eq!(
            request_action("Please cancel my meeting"),
            Some(Action::Change)
        );
        assert_eq!(request_action("find a hotel and book it"), None);
        // A yes-or-no question reads, unless it names what to do.
        assert_eq!(
            request_action("has anyone already reported the panic?"),
            Some(Action::Read)
        );
        assert_eq!(
            request_action("is it possible to add text to this image?"),
            Some(Action::Change)
        );
        assert_eq!(request_action("do a backup of the disk"), None);
        // A change word after "is" / "are" is a state asked about, after a modal's "be"
        // a change asked for.
        assert_eq!(request_action("grep it for how the defaults are set"), None);
        assert_eq!(
            request_action("find where the flag is registered"),
            Some(Action::Read)
        );
        assert_eq!(
            request_action("replicas should be set to 3"),
            Some(Action::Change)
        );
        assert_eq!(request_action("translate this sentence"), None);
    }

    fn tool(name: &str, annotations: Option<Value>) -> ToolRecord {
        let mut t = crate::catalog::mcp::blank_record(name.into(), name.into(), "test".into());
        t.description = "A tool.".into();
        t.annotations = annotations;
        t
    }

    #[test]
    fn a_tool_says_what_it_does_by_its_annotations_then_its_name() {
        assert_eq!(tool_action(&tool("QueryMeeting", None)), Some(Action::Read));
        assert_eq!(
            tool_action(&tool("DeleteMeeting", None)),
            Some(Action::Change)
        );
        assert_eq!(
            tool_action(&tool("ReminderSetter", None)),
            Some(Action::Change)
        );
        assert_eq!(tool_action(&tool("gh_pr_list", None)), Some(Action::Read));
        assert_eq!(tool_action(&tool("weather", None)), None);
        // A name that says both says neither.
        assert_eq!(tool_action(&tool("search_and_replace", None)), None);
        let read_only = serde_json::json!({"readOnlyHint": true});
        assert_eq!(
            tool_action(&tool("delete_preview", Some(read_only))),
            Some(Action::Read)
        );
        let destructive = serde_json::json!({"destructiveHint": true});
        assert_eq!(
            tool_action(&tool("weather", Some(destructive))),
            Some(Action::Change)
        );
    }

    proptest::proptest! {
        #![proptest_config(crate::hostile_text::config())]

        /// Any text is read without panicking, and a text that also asks to delete never
        /// reads as a lookup.
        #[test]
        fn a_change_is_never_read_as_a_lookup(text in crate::hostile_text::text()) {
            let asked = request_action(&format!("{text} and delete it"));
            proptest::prop_assert_ne!(asked, Some(Action::Read));
        }
    }
}
