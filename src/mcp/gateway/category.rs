//! Categories for tools whose source gives none (upstream MCP servers, `tools/list` files):
//! the nearest of the catalog's own categories, marked as inferred. With the model, nearest
//! by meaning: each category is the mean of its tools' "name. description" vectors. Without
//! it, by the words a tool shares with each category, weighted by how few categories use
//! them. A catalog with no categories (only upstream sources), or a tool that shares nothing,
//! takes its source's name.

use crate::catalog::ToolRecord;
use crate::embed::cache::VectorCache;
use crate::embed::Embedder;
use crate::error::Result;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Fills the empty categories of `tools` from the categories of `catalog`. With `cache_dir`,
/// the "name. description" vectors are cached there (a file of their own, beside the
/// catalog's passage vectors): a reload then embeds only new and changed tools, not the
/// whole catalog again for the centroids.
pub(super) fn infer(
    tools: &mut [ToolRecord],
    catalog: &[ToolRecord],
    embedder: Option<&dyn Embedder>,
    cache_dir: Option<&Path>,
) -> Result<()> {
    let open: Vec<usize> = (0..tools.len())
        .filter(|&i| tools[i].category.is_empty())
        .collect();
    if open.is_empty() {
        return Ok(());
    }
    // Only tools with a category of their own define the categories.
    let catalog: Vec<&ToolRecord> = catalog.iter().filter(|t| !t.category.is_empty()).collect();
    let picks: Vec<Option<String>> = match embedder {
        _ if catalog.is_empty() => vec![None; open.len()],
        Some(e) => {
            let cache = cache_dir.map(|dir| {
                VectorCache::open(dir, &format!("{}#categories", e.model_id()), e.dim())
            });
            let cached = Cached {
                embedder: e,
                cache: cache.as_ref(),
            };
            let picks = by_meaning(open.iter().map(|&i| &tools[i]), &catalog, &cached)?;
            if let Some(Err(err)) = cache.as_ref().map(VectorCache::save) {
                tracing::warn!(error = %err, "could not save the category vector cache");
            }
            picks
        }
        None => by_words(open.iter().map(|&i| &tools[i]), &catalog),
    };
    for (i, pick) in open.into_iter().zip(picks) {
        let tool = &mut tools[i];
        let fallback = tool
            .source
            .as_ref()
            .map_or_else(|| "other".to_string(), |s| s.name.clone());
        tool.category = pick.unwrap_or(fallback);
        match tool.source.as_mut() {
            Some(s) => s.category_inferred = true,
            None => tool.category_inferred = true,
        }
    }
    Ok(())
}

/// An embedder answering from a vector cache first.
struct Cached<'a> {
    embedder: &'a dyn Embedder,
    cache: Option<&'a VectorCache>,
}

impl Embedder for Cached<'_> {
    fn dim(&self) -> usize {
        self.embedder.dim()
    }

    fn model_id(&self) -> &str {
        self.embedder.model_id()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        match self.cache {
            Some(cache) => Ok(cache.embed(self.embedder, texts)?.0),
            None => self.embedder.embed(texts),
        }
    }
}

fn text(t: &ToolRecord) -> String {
    format!("{}. {}", t.name, t.description)
}

fn by_meaning<'a>(
    tools: impl Iterator<Item = &'a ToolRecord>,
    catalog: &[&ToolRecord],
    embedder: &dyn Embedder,
) -> Result<Vec<Option<String>>> {
    let catalog_texts: Vec<String> = catalog.iter().map(|t| text(t)).collect();
    let refs: Vec<&str> = catalog_texts.iter().map(String::as_str).collect();
    let vectors = embedder.embed(&refs)?;
    let mut sums: BTreeMap<&str, Vec<f32>> = BTreeMap::new();
    for (t, v) in catalog.iter().zip(&vectors) {
        let sum = sums
            .entry(t.category.as_str())
            .or_insert_with(|| vec![0.0; v.len()]);
        sum.iter_mut().zip(v).for_each(|(s, x)| *s += x);
    }
    let centroids: Vec<(&str, Vec<f32>)> = sums
        .into_iter()
        .map(|(c, mut v)| {
            let norm = v
                .iter()
                .map(|x| x * x)
                .sum::<f32>()
                .sqrt()
                .max(f32::EPSILON);
            v.iter_mut().for_each(|x| *x /= norm);
            (c, v)
        })
        .collect();
    let texts: Vec<String> = tools.map(text).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let vectors = embedder.embed(&refs)?;
    Ok(vectors
        .iter()
        .map(|v| {
            centroids
                .iter()
                .map(|(c, centroid)| (*c, dot(v, centroid)))
                // Highest similarity; ties to the first category by name.
                .fold(None, |best: Option<(&str, f32)>, (c, s)| match best {
                    Some((_, b)) if b >= s => best,
                    _ => Some((c, s)),
                })
                .map(|(c, _)| c.to_string())
        })
        .collect())
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Lowercase words of three or more letters or digits.
fn words(s: &str) -> BTreeSet<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}

fn by_words<'a>(
    tools: impl Iterator<Item = &'a ToolRecord>,
    catalog: &[&ToolRecord],
) -> Vec<Option<String>> {
    let mut bags: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for t in catalog {
        bags.entry(t.category.as_str())
            .or_default()
            .extend(words(&text(t)));
    }
    let n = bags.len() as f64;
    let mut df: BTreeMap<&str, usize> = BTreeMap::new();
    for bag in bags.values() {
        for w in bag {
            *df.entry(w.as_str()).or_default() += 1;
        }
    }
    tools
        .map(|t| {
            let own = words(&text(t));
            bags.iter()
                .map(|(c, bag)| {
                    let score: f64 = own
                        .iter()
                        .filter(|w| bag.contains(*w))
                        .map(|w| (1.0 + n / df[w.as_str()] as f64).ln())
                        .sum();
                    (*c, score)
                })
                .filter(|(_, s)| *s > 0.0)
                .fold(None, |best: Option<(&str, f64)>, (c, s)| match best {
                    Some((_, b)) if b >= s => best,
                    _ => Some((c, s)),
                })
                .map(|(c, _)| c.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::mcp::blank_record;
    use crate::catalog::ToolSource;

    fn tool(id: &str, category: &str, description: &str) -> ToolRecord {
        let mut r = blank_record(id.into(), id.into(), category.into());
        r.description = description.into();
        r
    }

    fn upstream(id: &str, description: &str) -> ToolRecord {
        let mut r = tool(id, "", description);
        r.source = Some(ToolSource {
            name: "srv".into(),
            kind: "mcp".into(),
            title: None,
            description: None,
            category_inferred: false,
        });
        r
    }

    #[test]
    fn shared_words_pick_the_category_and_mark_it_inferred() {
        let catalog = [
            tool(
                "git_log",
                "version_control",
                "Show the commit history of a git repository",
            ),
            tool(
                "psql",
                "database",
                "Run SQL queries against a PostgreSQL database",
            ),
        ];
        let mut tools = [
            upstream("a", "List commits of the repository history"),
            upstream("b", "Execute a query on the database"),
            upstream("c", "Ⱥ é 😀"),
        ];
        infer(&mut tools, &catalog, None, None).unwrap();
        assert_eq!(tools[0].category, "version_control");
        assert_eq!(tools[1].category, "database");
        // Nothing shared: the source's name.
        assert_eq!(tools[2].category, "srv");
        assert!(tools
            .iter()
            .all(|t| t.source.as_ref().unwrap().category_inferred));
    }

    #[test]
    fn without_catalog_categories_the_source_names_them() {
        let mut tools = [upstream("a", "anything")];
        infer(&mut tools, &[], None, None).unwrap();
        assert_eq!(tools[0].category, "srv");
    }
}
