# The README's two commands: `make run` serves toolscout, `make test` runs every check.
# Both fetch the embedding model and ONNX Runtime first (pinned, sha256-checked, idempotent).

CARGO ?= cargo

.PHONY: run test models api-fuzzer mcp-clients tools build lint fmt bench eval

models:
	scripts/fetch-models

# schemathesis, for the integration test that fuzzes the server through its OpenAPI document.
api-fuzzer:
	scripts/fetch-schemathesis

# The official MCP clients the tests drive the MCP server with: the Python SDK (stdio and
# streamable HTTP), and the conformance suite on the Node 22 it needs; with them, the real
# MCP servers the gateway tests use as upstreams (time and git from PyPI, filesystem and
# everything from npm).
mcp-clients:
	scripts/fetch-mcp-python
	scripts/fetch-mcp-conformance

# What the executed tools use: a TypeScript language server for the LSP tools, and ripgrep,
# which the tests compare localSearchCode against.
tools:
	scripts/fetch-language-servers
	scripts/fetch-ripgrep

build:
	$(CARGO) build --release

run: models tools build
	./target/release/toolscout serve

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets --locked -- -D warnings

test: models api-fuzzer mcp-clients tools lint
	$(CARGO) test --locked
	# The binary `cargo test` just built for the integration tests; `cargo run` would rebuild
	# the dependency graph without dev-dependency features, for minutes, to the same effect.
	./target/debug/toolscout catalog validate catalog

fmt:
	$(CARGO) fmt --all

# Then the HNSW recall check at 10k owners, too slow for `make test` (minutes in a debug
# build) and `#[ignore]`d there, so it runs here in a release build instead of never.
bench: models
	$(CARGO) bench
	$(CARGO) test --release --locked --lib index::vector -- --ignored --nocapture

# The development suite's test halves in one table (tune with `--half tune`; see README).
eval: models build
	./target/release/toolscout eval --suite eval/suite.json --half test
