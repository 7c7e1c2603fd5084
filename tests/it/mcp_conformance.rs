//! The MCP conformance suite against `/mcp` (being written).
