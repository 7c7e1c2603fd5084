#!/usr/bin/env python3
"""Writes eval/mcp/tools.jsonl: the shipped catalog (../../catalog) as MCP `tools/list`
entries, the shape a user's MCP servers give toolscout. Each tool keeps only what an MCP
server says of it: `name` (the catalog id), `title` (the catalog name), `description`,
`inputSchema` (the catalog's input schema), and its `server` (`name` and `description`).
Search keywords, tags, guidance and examples are left out: no MCP server sends them.

Servers: the tool's id up to its first underscore names its server ("gh", "kubectl",
"github" ...), except where one real server serves several prefixes (below); a server's
description is its tools' author. Run from anywhere: python3 eval/mcp/convert.py
"""
import glob
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOG = os.path.join(HERE, "..", "..", "catalog")
# Prefixes served by one server under another name.
SERVERS = {"github": "octocode", "local": "octocode", "lsp": "octocode",
           "package": "octocode", "fs": "filesystem", "brave": "brave-search",
           "fetch": "fetch"}


def entry(record):
    prefix = record["tool_id"].split("_")[0]
    return {
        "name": record["tool_id"],
        "title": record["name"],
        "description": record["description"],
        "inputSchema": record.get("input_schema") or {"type": "object", "properties": {}},
        "server": {"name": SERVERS.get(prefix, prefix), "description": record["author"]},
    }


def main():
    paths = sorted(glob.glob(os.path.join(CATALOG, "**", "*.json"), recursive=True))
    records = [json.load(open(p, encoding="utf-8")) for p in paths]
    records.sort(key=lambda r: r["tool_id"])
    with open(os.path.join(HERE, "tools.jsonl"), "w", encoding="utf-8") as out:
        for r in records:
            out.write(json.dumps(entry(r), ensure_ascii=False) + "\n")
    print(f"{len(records)} tools")


if __name__ == "__main__":
    main()
