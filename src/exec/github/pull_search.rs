//! The `q=` string githubSearchPullRequests sends to the issue search: the query text, `is:pr`,
//! the scope, and one qualifier per filter, in a fixed order so equal queries search alike.

use super::{Count, Labels, Query};
use crate::exec::github::{check_range, qualifier, Scope};
use crate::exec::outcome::QueryError;

/// The `q=` string of a search.
pub(super) fn build_q(q: &Query, scope: &Scope) -> Result<String, QueryError> {
    let mut parts: Vec<String> = Vec::new();
    if let Some(text) = q.query.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        parts.push(text.to_string());
    }
    parts.push("is:pr".into());
    let before = parts.len();
    parts.extend(scope.qualifier());
    match q.state.as_deref() {
        Some("open") => parts.push("is:open".into()),
        Some("closed") => parts.push("is:closed".into()),
        _ => {}
    }
    people_and_labels(q, &mut parts);
    dates_and_flags(q, &mut parts)?;
    counts(q, &mut parts)?;
    let mut fields: Vec<&str> = Vec::new();
    for m in q.r#match.iter().map(String::as_str) {
        if ["title", "body", "comments"].contains(&m) && !fields.contains(&m) {
            fields.push(m);
        }
    }
    if !fields.is_empty() {
        parts.push(format!("in:{}", fields.join(",")));
    }
    if parts.len() == before && q.query.as_deref().is_none_or(|t| t.trim().is_empty()) {
        return Err(QueryError::invalid("expected prNumber, query, owner/repo or a filter (author, state, label, ...), found none")
            .hint("Scope the search with owner and repo, or give query text to look for"));
    }
    Ok(parts.join(" "))
}

/// Who is involved, the branches, the labels and the `no:` qualifiers.
fn people_and_labels(q: &Query, parts: &mut Vec<String>) {
    for (name, value) in [
        ("author", &q.author),
        ("assignee", &q.assignee),
        ("commenter", &q.commenter),
        ("involves", &q.involves),
        ("mentions", &q.mentions),
        ("review-requested", &q.review_requested),
        ("reviewed-by", &q.reviewed_by),
        ("head", &q.head),
        ("base", &q.base),
    ] {
        parts.extend(qualifier(name, value.as_deref()));
    }
    let labels: Vec<&str> = match &q.label {
        None => Vec::new(),
        Some(Labels::One(l)) => vec![l.as_str()],
        Some(Labels::Many(ls)) => ls.iter().map(String::as_str).collect(),
    };
    parts.extend(
        labels
            .into_iter()
            .filter_map(|l| qualifier("label", Some(l))),
    );
    for (name, flag) in [
        ("label", q.no_label),
        ("milestone", q.no_milestone),
        ("project", q.no_project),
        ("assignee", q.no_assignee),
    ] {
        if flag == Some(true) {
            parts.push(format!("no:{name}"));
        }
    }
}

/// Date ranges, merged and draft.
fn dates_and_flags(q: &Query, parts: &mut Vec<String>) -> Result<(), QueryError> {
    for (field, name, value) in [
        ("created", "created", &q.created),
        ("updated", "updated", &q.updated),
        ("closed", "closed", &q.closed),
        ("merged-at", "merged", &q.merged_at),
    ] {
        if let Some(v) = value.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
            check_range(field, v, true)?;
            parts.push(format!("{name}:{v}"));
        }
    }
    match q.merged {
        Some(true) => parts.push("is:merged".into()),
        Some(false) => parts.push("is:unmerged".into()),
        None => {}
    }
    if let Some(d) = q.draft {
        parts.push(format!("draft:{d}"));
    }
    Ok(())
}

/// Comment, reaction and interaction counts, as numbers or ranges.
fn counts(q: &Query, parts: &mut Vec<String>) -> Result<(), QueryError> {
    for (name, value) in [
        ("comments", &q.comments),
        ("reactions", &q.reactions),
        ("interactions", &q.interactions),
    ] {
        match value {
            Some(Count::Number(n)) => parts.push(format!("{name}:{n}")),
            Some(Count::Text(t)) if !t.trim().is_empty() => {
                check_range(name, t, false)?;
                parts.push(format!("{name}:{}", t.trim()));
            }
            _ => {}
        }
    }
    Ok(())
}
