//! Tests of `semantic` and `persist`: an update embeds only new and changed tools and answers
//! as a fresh build; a large change builds afresh; a persisted index loads back the same, and
//! a damaged or foreign file is ignored.

use super::*;
use crate::catalog::mcp::blank_record;
use crate::catalog::Catalog;
use crate::index::persist;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bag of hashed words (plus a constant) in 48 dimensions, counting the texts it embeds: a
/// pure function of the text, so a fresh build and an update can be compared exactly.
struct Words {
    embedded: AtomicUsize,
    id: &'static str,
}

impl Embedder for Words {
    fn dim(&self) -> usize {
        48
    }
    fn model_id(&self) -> &str {
        self.id
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embedded.fetch_add(texts.len(), Ordering::SeqCst);
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = [0.0f32; 48];
                v[0] = 0.5;
                for w in t.split_whitespace() {
                    let h = w
                        .bytes()
                        .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(b.into()));
                    v[1 + (h % 47) as usize] += 1.0;
                }
                let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.iter().map(|x| x / n).collect()
            })
            .collect())
    }
}

fn words(id: &'static str) -> Arc<Words> {
    Arc::new(Words {
        embedded: AtomicUsize::new(0),
        id,
    })
}

const VOCABULARY: [&str; 12] = [
    "files",
    "search",
    "invoice",
    "calendar",
    "deploy",
    "image",
    "ticket",
    "backup",
    "query",
    "translate",
    "schedule",
    "archive",
];

fn tool(i: usize, edit: &str) -> crate::catalog::ToolRecord {
    let mut t = blank_record(format!("t{i:04}"), format!("tool{i:04}"), "c".into());
    t.description = format!(
        "{} the {} of workspace {} {edit}",
        VOCABULARY[i % 12],
        VOCABULARY[(i / 12) % 12],
        i % 5
    );
    t
}

fn docs(tools: Vec<crate::catalog::ToolRecord>) -> Vec<ToolDocument> {
    Catalog::from_tools(std::path::PathBuf::from("c"), tools).documents()
}

/// 600 tools, then: the first 4 removed, 4 edited, 4 new ones first in the catalog (every
/// survivor's ordinal moves).
fn catalogs() -> (Vec<ToolDocument>, Vec<ToolDocument>, usize) {
    let before = docs((0..600).map(|i| tool(i, "")).collect());
    let mut after: Vec<_> = (1000..1004).map(|i| tool(i, "")).collect();
    after.extend((4..600).map(|i| tool(i, if i % 150 == 7 { "now by owner" } else { "" })));
    let fresh = 4 + (4..600).filter(|i| i % 150 == 7).count();
    (before, docs(after), fresh)
}

fn answers(s: &Semantic, q: &[f32]) -> Vec<(String, f32, PassageKind)> {
    s.passages
        .search(q, 15, None)
        .unwrap()
        .iter()
        .map(|h| {
            (
                s.tools[h.owner as usize].id.clone(),
                h.cosine,
                s.passage_kinds[h.vector as usize],
            )
        })
        .collect()
}

#[test]
fn an_update_embeds_only_new_and_changed_tools_and_answers_as_a_fresh_build() {
    let (before, after, fresh_tools) = catalogs();
    let model = words("w");
    let base = Semantic::build(&before, model.clone(), None, None).unwrap();
    model.embedded.store(0, Ordering::SeqCst);
    let updated = Semantic::build(&after, model.clone(), None, Some(&base)).unwrap();
    let passages: usize = after
        .iter()
        .filter(|d| d.tool_id.starts_with("t10") || d.description.contains("owner"))
        .map(|d| d.passages.len())
        .sum();
    assert_eq!(model.embedded.load(Ordering::SeqCst), passages);
    assert!(updated.is_overlay() && fresh_tools == 8);
    let fresh = Semantic::build(&after, model.clone(), None, None).unwrap();
    assert_eq!(updated.tools, fresh.tools);
    assert_eq!(updated.len(), fresh.len());
    for text in [
        "search the invoice",
        "deploy image now by owner",
        "translate tickets",
    ] {
        let q = model.embed(&[text]).unwrap().remove(0);
        assert_eq!(answers(&updated, &q), answers(&fresh, &q), "{text}");
        let s = |s: &Semantic| -> Vec<(u32, f32)> {
            s.summaries
                .search(&q, 10, None)
                .unwrap()
                .iter()
                .map(|h| (h.owner, h.cosine))
                .collect()
        };
        assert_eq!(s(&updated), s(&fresh));
    }
}

#[test]
fn a_large_change_or_another_model_builds_afresh() {
    let (before, _, _) = catalogs();
    let model = words("w");
    let base = Semantic::build(&before, model.clone(), None, None).unwrap();
    let rewritten = docs(
        (0..600)
            .map(|i| tool(i, if i % 2 == 0 { "edited" } else { "" }))
            .collect(),
    );
    let rebuilt = Semantic::build(&rewritten, model.clone(), None, Some(&base)).unwrap();
    assert!(!rebuilt.is_overlay() && !rebuilt.passages.shares_core_with(&base.passages));
    let other = Semantic::build(&before, words("other"), None, Some(&base)).unwrap();
    assert!(!other.passages.shares_core_with(&base.passages));
    // Nothing changed: the same core, no overlay.
    let same = Semantic::build(&before, model, None, Some(&base)).unwrap();
    assert!(same.passages.shares_core_with(&base.passages) && !same.is_overlay());
}

#[test]
fn a_persisted_index_loads_back_and_a_damaged_or_foreign_one_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let (before, after, _) = catalogs();
    let model = words("w");
    let as_dyn = |m: &Arc<Words>| -> Arc<dyn Embedder> { m.clone() };
    let base = Semantic::build(&before, model.clone(), None, None).unwrap();
    let path = persist::save(dir.path(), "v1", &base).unwrap();
    let loaded = persist::load(dir.path(), "v1", &as_dyn(&model), 600).unwrap();
    assert_eq!(loaded.tools, base.tools);
    assert_eq!(loaded.passage_kinds, base.passage_kinds);
    let q = model.embed(&["search the invoice"]).unwrap().remove(0);
    assert_eq!(answers(&loaded, &q), answers(&base, &q));
    // Another version finds the newest file as its base; an update of it answers as usual.
    let updated = Semantic::build(&after, model.clone(), None, Some(&base)).unwrap();
    persist::save(dir.path(), "v2", &updated).unwrap();
    let newest = persist::load(dir.path(), "v3", &as_dyn(&model), 600).unwrap();
    assert_eq!(newest.tools, updated.tools);
    assert_eq!(answers(&newest, &q), answers(&updated, &q));
    // A catalog of another size does not read the newest file as a base.
    assert!(persist::load(dir.path(), "v3", &as_dyn(&model), 60).is_none());
    // Another model's files are not used.
    assert!(persist::load(dir.path(), "v1", &as_dyn(&words("other")), 600).is_none());
    // A damaged file is skipped (here, for the other file of the model).
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let fallback = persist::load(dir.path(), "v1", &as_dyn(&model), 600).unwrap();
    assert_eq!(fallback.tools, updated.tools);
    std::fs::write(&path, &bytes[..100]).unwrap();
    assert!(persist::load(dir.path(), "v1", &as_dyn(&model), 600).is_some());
    // At most KEEP_FILES per model stay.
    for v in ["v4", "v5", "v6", "v7"] {
        persist::save(dir.path(), v, &base).unwrap();
    }
    let files = std::fs::read_dir(dir.path().join("index")).unwrap().count();
    assert_eq!(files, persist::KEEP_FILES);
}
