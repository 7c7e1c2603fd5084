"""Calls toolscout's MCP tools with the official MCP Python SDK and prints what came back, so a
test can hold the answers against another door (e.g. the HTTP API given the same bodies).

Usage: call_tools.py stdio BINARY CATALOG [--models DIR] --calls JSON
       call_tools.py http URL --calls JSON
JSON is a list of [tool name, arguments] pairs, called in order in one session. Prints a JSON
list with, per call, {"is_error", "structured_content", "text"} (text: the first text
content). Checks only that every call got a result (a JSON-RPC error exits 1 with
"FAILED: ..." on stderr); judging the results is the caller's business.
"""

import json

from mcp.shared.exceptions import MCPError

from mcp_session import CheckFailed, connect, finish, parser


def main():
    def options(sub):
        sub.add_argument("--calls", required=True, help="a JSON list of [name, arguments] pairs")

    args = parser(__doc__.splitlines()[0], options).parse_args()
    calls = json.loads(args.calls)
    if not (isinstance(calls, list) and all(isinstance(c, list) and len(c) == 2 for c in calls)):
        raise SystemExit(f"call_tools.py: --calls is not a list of [name, arguments]: {args.calls}")

    async def run():
        answers = []
        async with connect(args) as (session, _init):
            for name, arguments in calls:
                try:
                    result = await session.call_tool(name, arguments)
                except MCPError as error:
                    what = f"{name} {json.dumps(arguments)}"
                    raise CheckFailed(f"{what}: JSON-RPC error {error.code}: {error.message}")
                texts = [c.text for c in result.content if c.type == "text"]
                answers.append(
                    {
                        "is_error": bool(result.is_error),
                        "structured_content": result.structured_content,
                        "text": texts[0] if texts else None,
                    }
                )
        return answers

    finish(run)


if __name__ == "__main__":
    main()
