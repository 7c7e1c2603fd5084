//! Unit tests of `task`: steps, facets, constraints and context read from task texts.

use super::*;

#[test]
fn the_jwt_task_has_three_steps() {
    assert_eq!(
        steps("find where JWTs are validated in my repo, then read that function and list its callers"),
        [
            "find where JWTs are validated in my repo",
            "read that function",
            "list its callers"
        ]
    );
}

#[test]
fn sentences_numbers_and_cues_split_steps() {
    assert_eq!(
        steps("Clone the repo. Then run the tests; finally open a pull request"),
        ["Clone the repo", "run the tests", "open a pull request"]
    );
    assert_eq!(
        steps("1) search the code for TODO 2) show the file tree"),
        ["search the code for TODO", "show the file tree"]
    );
}

/// "GET https://api.acme.com/v2/orders?status=open ..." had been cut at the URL's question
/// mark: a sentence ends at a mark before a space, never inside a URL or code.
#[test]
fn marks_inside_urls_and_code_end_no_step() {
    assert_eq!(
        steps("GET https://api.acme.com/v2/orders?status=open!x with my API key"),
        ["GET https://api.acme.com/v2/orders?status=open!x with my API key"]
    );
    assert_eq!(
        steps("run `a;b` in the shell; show me the output;"),
        ["run `a;b` in the shell", "show me the output"]
    );
    // Nor at an abbreviation's full stop.
    assert_eq!(
        steps("email Dr. Smith the report. Then list the open issues"),
        ["email Dr. Smith the report", "list the open issues"]
    );
}

/// A verb of no list is read by its frame: a plain word after "and" or a comma, followed by
/// a word that opens an object.
#[test]
fn a_verb_before_its_object_opens_a_step() {
    assert_eq!(
        steps("fetch the orders as JSON and reshape the result into id and total"),
        [
            "fetch the orders as JSON",
            "reshape the result into id and total"
        ]
    );
    assert_eq!(
        steps("find job openings and let me know about discounted courses"),
        ["find job openings", "let me know about discounted courses"]
    );
    // Not a question word, an inflected word or a function word.
    for one in [
        "the latest news about Tesla and how it affected the stock market",
        "the tool that finds files and returns their sizes",
        "list the pods and their restarts",
        "weather in Paris and London this week",
    ] {
        assert_eq!(steps(one), [one], "{one}");
    }
}

#[test]
fn steps_lose_dangling_joiners_and_quotes() {
    assert_eq!(
        steps("\"Work out the interest for 5 years, and also check the discounts on shares\""),
        [
            "Work out the interest for 5 years",
            "check the discounts on shares"
        ]
    );
}

#[test]
fn a_step_naming_nothing_joins_its_neighbour() {
    assert_eq!(
        steps("Fastly has a status page somewhere; locate it, then read it all again"),
        ["Fastly has a status page somewhere, locate it, read it all again"]
    );
    assert_eq!(
        steps("find it; then open the newest log under /var/log"),
        ["find it, open the newest log under /var/log"]
    );
    // Two at the start both join the first step that names something; none is lost.
    assert_eq!(
        steps("find it; then read it; then open the newest log under /var/log"),
        ["find it, read it, open the newest log under /var/log"]
    );
    // A step with a noun of its own stays a step; one after a step that opens with a verb
    // acts on that step's object, as a step of its own.
    assert_eq!(
        steps("find the config, then read it and check its port"),
        ["find the config", "read the config", "check its port"]
    );
    assert_eq!(
        steps("find a page that explains it and read it"),
        [
            "find a page that explains it",
            "read a page that explains it"
        ]
    );
}

/// "what does it call, and who last touched it" had been one step: a question after "and"
/// is a step of its own, a relative clause after a comma is not.
#[test]
fn a_question_after_and_is_a_step() {
    assert_eq!(
        steps(
            "what does handle_webhook call, two levels out, and who last touched each line of it?"
        ),
        [
            "what does handle_webhook call, two levels out",
            "who last touched each line of it"
        ]
    );
    assert_eq!(
        steps("list the repos of acme, which have more than 100 stars"),
        ["list the repos of acme, which have more than 100 stars"]
    );
}

/// "Can you also find ..." had split into "Can you" and "find ...": a part that only asks
/// is no step.
#[test]
fn a_part_that_only_asks_is_no_step() {
    assert_eq!(
        steps("I need hotels near the Eiffel Tower. Can you also find nearby restaurants?"),
        [
            "I need hotels near the Eiffel Tower",
            "Can you also find nearby restaurants"
        ]
    );
    assert_eq!(
        steps("find the largest CSV under data/raw and show me column stats for it"),
        [
            "find the largest CSV under data/raw",
            "show me column stats for it"
        ]
    );
    assert_eq!(
        steps("Could you also list the open issues"),
        ["Could you also list the open issues"]
    );
}

#[test]
fn one_need_stays_one_step() {
    assert_eq!(
        steps("search and replace text in files"),
        ["search and replace text in files"]
    );
    assert_eq!(
        steps("the latest news about Tesla and how it impacted the stock market"),
        ["the latest news about Tesla and how it impacted the stock market"]
    );
    assert_eq!(steps("grep"), ["grep"]);
}

#[test]
fn facets_split_joined_needs() {
    assert_eq!(
        facets("the latest news about Tesla and how it impacted the stock market"),
        [
            "the latest news about Tesla",
            "how it impacted the stock market"
        ]
    );
    assert!(facets("search and replace text").is_empty());
}

/// Offsets found in a lowercased copy once sliced the task: 'Ⱥ' is 2 bytes, 'ⱥ' 3.
#[test]
fn case_changing_characters_do_not_shift_the_cuts() {
    assert_eq!(split_on_cues("Ⱥ then éé"), ["Ⱥ", "éé"]);
    assert_eq!(split_on_cues("ȺȺȺ THEN ẞ, And Then İ"), ["ȺȺȺ", "ẞ", "İ"]);
    assert_eq!(steps("Ⱥ then éé"), ["Ⱥ then éé"]);
    assert_eq!(
        steps("find Ⱥ files then read ẞ docs"),
        ["find Ⱥ files", "read ẞ docs"]
    );
    assert_eq!(steps("İİ read the files and"), ["İİ read the files"]);
    assert_eq!(steps("First read the files AND"), ["read the files"]);
}

proptest::proptest! {
    #![proptest_config(crate::hostile_text::config())]

    #[test]
    fn any_task_splits_into_pieces_of_itself(task in crate::hostile_text::text()) {
        for piece in split_on_cues(&task) {
            proptest::prop_assert!(task.contains(&piece), "{piece:?}");
        }
        proptest::prop_assert!(!steps(&task).is_empty());
        proptest::prop_assert!(!steps(&without_purposes(&task)).is_empty());
        for step in steps(&task) {
            let _ = facets(&step);
        }
        let _ = constraints(&task);
        let _ = inferred_context(&task, Some(&task));
    }
}

#[test]
fn constraints_and_context() {
    assert_eq!(
        constraints("find every caller, only in src, without tests"),
        ["without", "only", "every"]
    );
    assert_eq!(
        inferred_context("find JWT checks in my repo", Some("a Python service")),
        ["language: Python", "source: local files"]
    );
    assert_eq!(
        inferred_context("list open PRs on GitHub", None),
        ["source: GitHub"]
    );
    assert!(inferred_context("convert a pdf", None).is_empty());
}

/// "...; I want to ask them about it on Slack afterwards" had been a step of its own, and
/// the chat search its tool.
#[test]
fn the_users_own_later_step_is_no_step() {
    let task = "find the line in src/ that raises 'quota exceeded' and who last modified it; \
                I want to ask them about it on Slack afterwards";
    assert_eq!(
        steps(&without_purposes(task)),
        // Who last changed a line is a question of its own (a blame, not a search).
        [
            "find the line in src/ that raises 'quota exceeded'",
            "who last modified it"
        ]
    );
    let task = "show the last 100 lines so I can see why, then restart the service";
    assert_eq!(
        steps(&without_purposes(task)),
        ["show the last 100 lines", "restart the service"]
    );
}

/// A step's closing quote had been cut ("raises 'quota exceeded"): a quote at a step's end
/// stays when it closes one inside, and goes with its partner when it wraps the step.
#[test]
fn a_step_keeps_the_quote_it_closes() {
    assert_eq!(
        steps("find where it raises 'quota exceeded'."),
        ["find where it raises 'quota exceeded'"]
    );
    assert_eq!(steps("\"find the config\""), ["find the config"]);
    assert_eq!(steps("check it's fine'"), ["check it's fine"]);
}
