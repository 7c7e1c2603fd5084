//! The MCP server in process, driven by rmcp's client over an in-memory duplex (being written).
