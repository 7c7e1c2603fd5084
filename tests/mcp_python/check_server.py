"""Drives toolscout's MCP server with the official MCP Python SDK, as a real client would, and
checks what an agent relies on:

- initialize: serverInfo.name is "toolscout"; tools, prompts, resources and logging are offered;
- tools/list: exactly the six meta-tools, each with a description, an object inputSchema and an
  outputSchema; the instructions and the search_tools description state the catalog's tool
  count (as many as there are toolscout://tools/ resources); search_tools keeps
  its JSON Schema 2020-12 `$schema` and `additionalProperties: false` (what the conformance
  suite's json-schema-2020-12 scenario checks of a fixture tool toolscout does not have);
- every meta-tool answers with structured content and a text: search_tools (Markdown by
  default, JSON text on request), recommend_tools, compare_tools on two ids search found,
  describe_tool, and call_tool running localSearchCode on a fixture file, with progress
  notifications and, once logging/setLevel asked, a log message;
- mistakes the caller can fix are results with isError whose text is HTTP's ErrorDetail: a
  wrong search_tools field (VALIDATION_FAILED), an unknown tool for call_tool or describe_tool;
  protocol faults are JSON-RPC errors: an unknown MCP tool or prompt (-32602), a prompt without
  its required argument (-32602), an unknown resource (-32002);
- prompts/list and prompts/get with arguments; resources/list over every page, the resource
  template, resources/read of one toolscout://tools/<id>; ping.

Usage: check_server.py stdio BINARY CATALOG [--models DIR] [--workspace DIR]
       check_server.py http URL --workspace DIR
The fixture is written into WORKSPACE/fixture. Over stdio the workspace (default: a temporary
directory) is the server's working directory, hence its tools' workspace; over HTTP it must be
the running server's workspace root (TOOLSCOUT_WORKSPACE_ROOT). Prints a JSON summary on stdout
(with the structured content of a fixed search_tools call); on a failed check, prints
"FAILED: <what>" on stderr and exits 1.
"""

import json
import os
import tempfile
import warnings

import anyio
from mcp import MCPDeprecationWarning, types
from mcp.shared.exceptions import MCPError

from mcp_session import CheckFailed, connect, expect, finish, parser

META_TOOLS = ["search_tools", "recommend_tools", "compare_tools", "describe_tool", "call_tool", "rate_tool"]
FIXED_SEARCH = {"query": "search code in local files", "max_results": 3}
TASK = "find where a function is defined in a local checkout, then list its callers"
MARKER = "toolscout-mcp-python-fixture-marker"
TOOL_URI = "toolscout://tools/"
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
# JSON-RPC error codes the spec assigns: invalid params, resource not found.
INVALID_PARAMS = -32602
RESOURCE_NOT_FOUND = -32002
# Seconds to wait for a log message that travels apart from the result (see wait_for_log).
LOG_WAIT = 10


def text_of(result, what):
    """The first text content of a tool result."""
    texts = [c.text for c in result.content if c.type == "text"]
    expect(texts and texts[0].strip(), f"{what}: no text content in {result.content!r}")
    return texts[0]


async def call_ok(session, name, arguments, **options):
    """Calls a tool that must succeed (the SDK also validates the structured content against
    the tool's outputSchema); returns the result."""
    what = f"{name} {json.dumps(arguments)}"
    result = await session.call_tool(name, arguments, **options)
    expect(not result.is_error, f"{what} answered isError: {text_of(result, what)}")
    expect(isinstance(result.structured_content, dict), f"{what}: no structured content")
    expect(result.structured_content.get("success") is not False, f"{what}: success false")
    text_of(result, what)
    return result


async def call_error(session, name, arguments):
    """Calls a tool that must answer a user error; returns the ErrorDetail its text holds."""
    what = f"{name} {json.dumps(arguments)}"
    result = await session.call_tool(name, arguments)
    expect(result.is_error is True, f"{what}: expected isError true, got {result.is_error!r}")
    text = text_of(result, what)
    try:
        detail = json.loads(text)
    except ValueError:
        raise CheckFailed(f"{what}: the error text is not JSON: {text!r}") from None
    expect(isinstance(detail, dict) and detail.get("error_code"), f"{what}: no error_code: {text}")
    expect(
        result.structured_content == {"success": False, "error": detail},
        f"{what}: structured content {result.structured_content!r} is not the error envelope",
    )
    return detail


async def protocol_error(request, code, what):
    """Awaits `request`, which must fail with the JSON-RPC error `code`."""
    try:
        await request
    except MCPError as error:
        expect(
            error.code == code,
            f"{what}: expected JSON-RPC error {code}, got {error.code}: {error.message}",
        )
        return
    raise CheckFailed(f"{what} succeeded; expected JSON-RPC error {code}")


async def all_resources(session):
    """Every resource, following next_cursor."""
    resources, cursor = [], None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_resources(params=params)
        resources += page.resources
        cursor = page.next_cursor
        if not cursor:
            return resources


def check_initialize(init):
    expect(init.server_info.name == "toolscout", f"serverInfo.name is {init.server_info.name!r}")
    caps = init.capabilities
    for name in ["tools", "prompts", "resources", "logging"]:
        expect(getattr(caps, name) is not None, f"the server does not offer {name}: {caps!r}")
    expect(init.instructions and init.instructions.strip(), "no instructions")


async def check_tools_listed(session, init, catalog_size):
    listed = (await session.list_tools()).tools
    names = [t.name for t in listed]
    expect(names == META_TOOLS, f"tools/list gave {names}, expected {META_TOOLS}")
    for tool in listed:
        expect(tool.description and tool.description.strip(), f"{tool.name}: no description")
        expect(tool.input_schema.get("type") == "object", f"{tool.name}: inputSchema not an object")
        output = tool.output_schema or {}
        expect(output.get("type") == "object", f"{tool.name}: no object outputSchema")
    count = f"{catalog_size} tools"
    by_name = {t.name: t for t in listed}
    # search_tools is where an agent starts, so it is the tool that says what the catalog holds.
    search_says = by_name["search_tools"].description
    expect(count in search_says, f"search_tools' description does not say {count!r}")
    expect(count in init.instructions, f"the instructions do not say {count!r}")
    schema = by_name["search_tools"].input_schema
    dialect = schema.get("$schema")
    expect(dialect == DRAFT_2020_12, f"search_tools' inputSchema has $schema {dialect!r}")
    expect(schema.get("additionalProperties") is False, "search_tools lost additionalProperties")
    return names


async def check_discovery(session):
    """search, recommend, compare and describe; returns the fixed search's structured content
    and the two ids compared."""
    search = await call_ok(session, "search_tools", FIXED_SEARCH)
    found = search.structured_content
    results = found.get("results") or []
    expect(1 <= len(results) <= 3, f"search_tools gave {len(results)} results for max_results 3")
    text = text_of(search, "search_tools")
    expect(not text.lstrip().startswith("{"), f"search_tools' text is not Markdown: {text[:80]!r}")

    as_json = await call_ok(session, "search_tools", {**FIXED_SEARCH, "response_format": "json"})
    expect(
        json.loads(text_of(as_json, "search_tools json")) == as_json.structured_content,
        "search_tools with response_format json: the text is not the structured content",
    )

    recommend = await call_ok(session, "recommend_tools", {"task_description": TASK})
    expect(recommend.structured_content.get("recommendations"), "recommend_tools gave nothing")

    ids = [r["tool_id"] for r in results[:2]]
    expect(len(ids) == 2, f"search_tools found fewer than two tools to compare: {ids}")
    compare = await call_ok(session, "compare_tools", {"tool_ids": ids})
    compared = [t.get("tool_id") for t in compare.structured_content["comparison"]["tools"]]
    expect(sorted(compared) == sorted(ids), f"compare_tools compared {compared}, asked {ids}")

    describe = await call_ok(session, "describe_tool", {"name": ids[0]})
    tool = describe.structured_content
    expect(tool.get("tool_id") == ids[0], f"describe_tool {ids[0]} described {tool.get('tool_id')}")
    expect(isinstance(tool.get("input_schema"), dict), f"describe_tool {ids[0]}: no input_schema")
    return found, ids


async def check_call_tool(session, logs):
    """call_tool runs localSearchCode on the fixture, reporting progress and (logging is on)
    a log message; returns the match it found."""
    # Logging is deprecated in the newest protocol revision; toolscout still serves it for the
    # revisions clients speak today, so the SDK's deprecation warning is expected noise here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        await session.set_logging_level("info")
    progress = []

    async def on_progress(done, total, message):
        progress.append((done, total))

    query = {
        "id": "fixture",
        "researchGoal": "find the fixture marker",
        "reasoning": "the fixture holds it on its second line",
        "pattern": MARKER,
        "path": "fixture",
        "fixedString": True,
    }
    args = {"name": "localSearchCode", "queries": [query]}
    result = await call_ok(session, "call_tool", args, progress_callback=on_progress)
    ran = result.structured_content
    expect(ran.get("tool") == "localSearchCode" and ran.get("success"), f"call_tool gave {ran}")
    files = ran["data"]["results"][0].get("data", {}).get("files", [])
    expect(len(files) == 1 and files[0]["path"].endswith("notes.txt"), f"found: {files}")
    match = files[0]["matches"][0]
    expect(match["line"] == 2, f"the marker is on line 2, localSearchCode says {match}")
    expect(progress and progress[-1] == (1.0, 1.0), f"progress notifications: {progress}")
    logged = await wait_for_log(logs, "call_tool")
    expect(logged, f"no log message about call_tool after logging/setLevel info: {logs}")
    return {"path": files[0]["path"], "line": match["line"]}


async def wait_for_log(logs, tool):
    """Whether a log message about `tool` arrives within LOG_WAIT seconds. Progress rides the
    call's own stream, before its result; over streamable HTTP the server (rmcp) sends log
    messages on the session's standalone GET stream instead, which the SDK opens in the
    background and which has no order with the call's result, so the message may come after
    it."""

    def seen():
        return any(isinstance(log.data, dict) and log.data.get("tool") == tool for log in logs)

    with anyio.move_on_after(LOG_WAIT):
        while not seen():
            await anyio.sleep(0.05)
    return seen()


async def check_errors(session):
    detail = await call_error(session, "search_tools", {"query": "code search", "wrong_field": 1})
    expect(detail["error_code"] == "VALIDATION_FAILED", f"a wrong field: {detail['error_code']}")
    await call_error(session, "call_tool", {"name": "noSuchTool", "queries": [{"id": "q"}]})
    detail = await call_error(session, "describe_tool", {"name": "no_such_tool_anywhere"})
    expect(detail["error_code"] == "TOOL_NOT_FOUND", f"an unknown tool gave {detail['error_code']}")
    unknown_tool = session.call_tool("no_such_meta_tool", {})
    await protocol_error(unknown_tool, INVALID_PARAMS, "an unknown MCP tool")
    await protocol_error(session.get_prompt("no-such-prompt"), INVALID_PARAMS, "an unknown prompt")
    no_task = session.get_prompt("find-tool", {})
    await protocol_error(no_task, INVALID_PARAMS, "find-tool without its task")
    unknown_resource = session.read_resource(TOOL_URI + "no_such_tool_anywhere")
    await protocol_error(unknown_resource, RESOURCE_NOT_FOUND, "an unknown resource")


async def check_prompts(session):
    prompts = (await session.list_prompts()).prompts
    names = [p.name for p in prompts]
    expect("find-tool" in names, f"prompts/list has no find-tool: {names}")
    for prompt in prompts:
        expect(prompt.description, f"prompt {prompt.name}: no description")
    got = await session.get_prompt("find-tool", {"task": TASK, "context": "a Rust workspace"})
    expect(got.messages, "find-tool gave no messages")
    first = got.messages[0]
    expect(first.role == "user" and first.content.type == "text", f"find-tool's message: {first!r}")
    expect(TASK in first.content.text, "find-tool's text does not carry the task argument")
    return names


async def check_resources(session, resources):
    uris = [r.uri for r in resources]
    expect(resources and all(u.startswith(TOOL_URI) for u in uris), f"resources: {uris[:5]}...")
    expect(len(set(uris)) == len(uris), "resources/list repeats a resource across pages")
    templates = (await session.list_resource_templates()).resource_templates
    expect(
        [t.uri_template for t in templates] == [TOOL_URI + "{id}"],
        f"resource templates: {[t.uri_template for t in templates]}",
    )
    tool_id = uris[0][len(TOOL_URI) :]
    contents = (await session.read_resource(uris[0])).contents
    expect(
        len(contents) == 1 and contents[0].mime_type == "application/json",
        f"{uris[0]}: {contents!r}",
    )
    expect(json.loads(contents[0].text).get("tool_id") == tool_id, f"{uris[0]} is not {tool_id}")


async def run_checks(args, workspace):
    fixture = os.path.join(workspace, "fixture")
    os.makedirs(fixture, exist_ok=True)
    with open(os.path.join(fixture, "notes.txt"), "w") as notes:
        notes.write(f"a fixture for the MCP client checks\nthe {MARKER} is here\n")
    logs = []

    async def on_log(params):
        logs.append(params)

    cwd = workspace if args.transport == "stdio" else None
    async with connect(args, cwd=cwd, logging_callback=on_log) as (session, init):
        check_initialize(init)
        await session.send_ping()
        resources = await all_resources(session)
        tools = await check_tools_listed(session, init, len(resources))
        search, compared = await check_discovery(session)
        matched = await check_call_tool(session, logs)
        await check_errors(session)
        prompts = await check_prompts(session)
        await check_resources(session, resources)
        return {
            "transport": args.transport,
            "server": {"name": init.server_info.name, "version": init.server_info.version},
            "protocol_version": init.protocol_version,
            "tools": tools,
            "catalog_tools": len(resources),
            "prompts": prompts,
            "compared": compared,
            "fixture_match": matched,
            "search": search,
        }


def main():
    def options(sub):
        sub.add_argument("--workspace", help="the server's workspace root; the fixture goes in it")

    args = parser(__doc__.splitlines()[0], options).parse_args()
    if args.transport == "http" and not args.workspace:
        raise SystemExit("check_server.py http: --workspace DIR (the server's root) is required")

    async def run():
        if args.workspace:
            return await run_checks(args, args.workspace)
        with tempfile.TemporaryDirectory(prefix="toolscout-mcp-python-") as workspace:
            return await run_checks(args, workspace)

    finish(run)


if __name__ == "__main__":
    main()
