"""Connects the official MCP Python SDK's ClientSession to toolscout, for the scripts beside it.

Two transports, chosen by the first command-line word:

    SCRIPT stdio BINARY CATALOG [--models DIR] ...   spawn `BINARY --catalog CATALOG mcp`
    SCRIPT http URL ...                              a running server's /mcp endpoint

Over stdio the SDK hands the child only a minimal environment (PATH, HOME, ...), so what the
binary needs is passed explicitly: the vector cache and file logs off, as the Rust tests run it.
"""

import argparse
import contextlib
import json
import os
import sys

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

# Seconds one request may take before the SDK gives up on it (a hung server fails the run
# instead of waiting for the outer timeout).
REQUEST_TIMEOUT = 120


class CheckFailed(Exception):
    """A check on the server's behaviour did not hold; the message says which and why."""


def expect(condition, message):
    """Raises CheckFailed(message) unless condition holds."""
    if not condition:
        raise CheckFailed(message)


def parser(description, add_options):
    """An argument parser with the `stdio` and `http` transports as subcommands, each also
    taking the options `add_options(subparser)` adds."""
    top = argparse.ArgumentParser(description=description)
    transports = top.add_subparsers(dest="transport", required=True)
    stdio = transports.add_parser("stdio", help="spawn the toolscout binary (`mcp` command)")
    stdio.add_argument("binary", help="the toolscout executable")
    stdio.add_argument("catalog", help="the catalog directory to serve")
    stdio.add_argument("--models", help="the models directory (`--models` of `mcp`)")
    http = transports.add_parser("http", help="a running `toolscout serve`")
    http.add_argument("url", help="the MCP endpoint, e.g. http://127.0.0.1:PORT/mcp")
    add_options(stdio)
    add_options(http)
    return top


@contextlib.asynccontextmanager
async def connect(args, cwd=None, logging_callback=None):
    """An initialized ClientSession over the transport `args` name, and the initialize result.

    `cwd` is the stdio child's working directory, which is its tools' workspace."""
    if args.transport == "stdio":
        # Absolute: the child runs in `cwd`, where relative paths would no longer resolve.
        server_args = ["--catalog", os.path.abspath(args.catalog), "mcp"]
        if args.models:
            server_args += ["--models", os.path.abspath(args.models)]
        params = StdioServerParameters(
            command=os.path.abspath(args.binary),
            args=server_args,
            env={"TOOLSCOUT_CACHE_DIR": "", "TOOLSCOUT_LOG_DIR": ""},
            cwd=cwd,
        )
        transport = stdio_client(params)
    else:
        transport = streamable_http_client(args.url)
    async with transport as (read, write):
        async with ClientSession(
            read,
            write,
            read_timeout_seconds=REQUEST_TIMEOUT,
            logging_callback=logging_callback,
        ) as session:
            init = await session.initialize()
            yield session, init


def finish(run):
    """Runs the coroutine function `run` (no arguments); prints what it returns as JSON on
    stdout, or a failed check on stderr with exit status 1."""
    try:
        summary = anyio.run(run)
    except BaseException as error:  # noqa: BLE001 - re-raised unless it is a failed check
        failed = _check_failure(error)
        if failed is None:
            raise
        print(f"FAILED: {failed}", file=sys.stderr)
        sys.exit(1)
    json.dump(summary, sys.stdout, indent=2, sort_keys=True)
    print()


def _check_failure(error):
    """The CheckFailed in `error`, which anyio's task groups may have wrapped in (nested)
    exception groups on the way out of the session."""
    if isinstance(error, CheckFailed):
        return error
    for inner in getattr(error, "exceptions", ()):
        found = _check_failure(inner)
        if found is not None:
            return found
    return None
