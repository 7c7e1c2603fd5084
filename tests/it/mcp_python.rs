//! The official MCP Python SDK against both transports (being written).
