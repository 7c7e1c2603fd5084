"""Writes the fine-tuning pairs: (request, tool summary) from the tune halves of the suite's
metatool, bfcl and apibank sets (eval/), and each set's tune-half tool summaries (the hard
negatives' pool).

Halves are the suite's own (src/eval/suite.rs): a tool is in the test half when
splitmix64(14 ^ fnv1a(id)) is odd, and a request goes where its first gold tool in id order
goes. Only pairs whose tool is a tune tool are kept, so no test-half tool's text is ever
trained on, as positive or negative. The agent sets are left out entirely: they measure the
model on a catalog and requests it has never seen. At most 25 requests a tool (MetaTool has
about 100), in a seeded order.

Usage: python3 scripts/finetune/pairs.py OUT_DIR   (writes pairs.jsonl and docs_<set>.json)
"""

import json
import os
import random
import re
import sys

MASK = (1 << 64) - 1
SPLIT_SEED = 14
PER_TOOL = 25
SETS = ("metatool", "bfcl", "apibank")


def fnv1a(text):
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & MASK
    return h


def splitmix64(state):
    z = (state + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def in_test_half(tool_id):
    return splitmix64(SPLIT_SEED ^ fnv1a(tool_id)) & 1 == 1


def summary(tool):
    """The tool's name as words and its description, as the catalog's summary passage reads."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", tool["name"])
    words = " ".join(w for w in re.split(r"[^A-Za-z0-9]+", name) if w).lower()
    return "%s: %s" % (words, tool["description"])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "eval")
    rng = random.Random(7)
    pairs = []
    for name in SETS:
        with open(os.path.join(root, name, "tools.jsonl")) as f:
            tools = {t["id"]: t for t in map(json.loads, f)}
        by_tool = {}
        with open(os.path.join(root, name, "queries.jsonl")) as f:
            for q in map(json.loads, f):
                if in_test_half(min(q["relevant"])):
                    continue
                for t in q["relevant"]:
                    if t in tools and not in_test_half(t):
                        by_tool.setdefault(t, []).append(q["query"])
        for t, queries in sorted(by_tool.items()):
            rng.shuffle(queries)
            pairs += [{"set": name, "query": q, "tool": t, "doc": summary(tools[t])} for q in queries[:PER_TOOL]]
        docs = {t: summary(tools[t]) for t in sorted(tools) if not in_test_half(t)}
        with open(os.path.join(out, "docs_%s.json" % name), "w") as f:
            json.dump({"set": name, "docs": docs}, f)
        print(name, len(docs), "tune tools,", len(by_tool), "with requests")
    with open(os.path.join(out, "pairs.jsonl"), "w") as f:
        for p in pairs:
            f.write(json.dumps(p) + "\n")
    print(len(pairs), "pairs")


main()
