//! Development aid: dumps per-(query, tool) ranking evidence of an eval set to a binary file,
//! so fusion and calibration can be studied offline. Not part of the product.
//!
//! Usage: cargo run --release --example dump_evidence -- TOOLS.jsonl QUERIES.jsonl LIMIT SEED OUT
//! Output: OUT.json (tool ids, relevance, feature names, passage texts, owners and kinds),
//! OUT.f32 ([queries][tools][features]), and the vectors: OUT.qvec (queries), OUT.pvec (passages).

use std::io::Write;
use toolscout::catalog::{Catalog, PassageKind, ToolDocument};
use toolscout::embed::onnx::OnnxEmbedder;
use toolscout::embed::Embedder;
use toolscout::eval::{read_jsonl, sample, to_records, EvalQuery, EvalTool};
use toolscout::index::keyword::{FieldWeights, KeywordField, KeywordIndex};

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let tools: Vec<EvalTool> = read_jsonl(a[1].as_ref())?;
    let queries: Vec<EvalQuery> = read_jsonl(a[2].as_ref())?;
    let queries = sample(queries, Some(a[3].parse()?), a[4].parse()?);
    let out = &a[5];
    let catalog = Catalog::from_tools("eval".into(), to_records(&tools));
    let docs: Vec<ToolDocument> = catalog.documents();
    let embedder = OnnxEmbedder::load(&toolscout::config::default_dir("models"))?;
    // Keyword features: total with default weights, then one index per field.
    let mut kw = vec![KeywordIndex::build(&docs, FieldWeights::default())?];
    for f in KeywordField::ALL {
        let w = FieldWeights {
            names: 1.0,
            keywords: 1.0,
            description: 1.0,
            guidance: 1.0,
            parameters: 1.0,
            examples: 1.0,
        }
        .only(f);
        kw.push(KeywordIndex::build(&docs, w)?);
    }
    let mut ptexts = Vec::new();
    let mut powner = Vec::new();
    let mut pkind = Vec::new();
    for d in &docs {
        for p in &d.passages {
            ptexts.push(p.text.as_str());
            powner.push(d.ordinal as usize);
            pkind.push(p.kind);
        }
    }
    let mut pvec = Vec::new();
    for c in ptexts.chunks(64) {
        pvec.extend(embedder.embed(c)?);
    }
    let qtexts: Vec<&str> = queries.iter().map(|q| q.query.as_str()).collect();
    let mut qvec = Vec::new();
    for c in qtexts.chunks(64) {
        qvec.extend(embedder.embed(c)?);
    }
    let nt = docs.len();
    let names = [
        "bm25",
        "bm25_names",
        "bm25_keywords",
        "bm25_description",
        "bm25_guidance",
        "bm25_parameters",
        "bm25_examples",
        "cos_summary",
        "cos_guidance_max",
        "cos_guidance_mean",
        "cos_max",
    ];
    let nf = names.len();
    let mut file = std::io::BufWriter::new(std::fs::File::create(format!("{out}.f32"))?);
    for (qi, q) in queries.iter().enumerate() {
        let mut m = vec![0f32; nt * nf];
        for (fi, idx) in kw.iter().enumerate() {
            for h in idx.search(&q.query, nt, None) {
                m[h.ordinal as usize * nf + fi] = h.bm25;
            }
        }
        let mut gsum = vec![0f32; nt];
        let mut gcnt = vec![0f32; nt];
        for t in 0..nt {
            m[t * nf + 7] = -1.0;
            m[t * nf + 8] = -1.0;
            m[t * nf + 10] = -1.0;
        }
        for (pi, v) in pvec.iter().enumerate() {
            let c: f32 = v.iter().zip(&qvec[qi]).map(|(a, b)| a * b).sum();
            let t = powner[pi];
            match pkind[pi] {
                PassageKind::Summary => m[t * nf + 7] = m[t * nf + 7].max(c),
                PassageKind::Guidance => {
                    m[t * nf + 8] = m[t * nf + 8].max(c);
                    gsum[t] += c;
                    gcnt[t] += 1.0;
                }
                _ => {}
            }
            m[t * nf + 10] = m[t * nf + 10].max(c);
        }
        for t in 0..nt {
            m[t * nf + 9] = if gcnt[t] > 0.0 {
                gsum[t] / gcnt[t]
            } else {
                -1.0
            };
        }
        for x in m {
            file.write_all(&x.to_le_bytes())?;
        }
    }
    let mut vf = std::io::BufWriter::new(std::fs::File::create(format!("{out}.qvec"))?);
    for v in &qvec {
        for x in v {
            vf.write_all(&x.to_le_bytes())?;
        }
    }
    let mut pf = std::io::BufWriter::new(std::fs::File::create(format!("{out}.pvec"))?);
    for v in &pvec {
        for x in v {
            pf.write_all(&x.to_le_bytes())?;
        }
    }
    let meta = serde_json::json!({
        "powner": powner,
        "ptexts": ptexts,
        "pkind": pkind.iter().map(|k| k.as_str()).collect::<Vec<_>>(),
        "tools": catalog.tools().iter().map(|t| t.tool_id.clone()).collect::<Vec<_>>(),
        "relevant": queries.iter().map(|q| q.relevant.clone()).collect::<Vec<_>>(),
        "queries": queries.iter().map(|q| q.query.clone()).collect::<Vec<_>>(),
        "features": names,
    });
    std::fs::write(format!("{out}.json"), serde_json::to_string(&meta)?)?;
    Ok(())
}
