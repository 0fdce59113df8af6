// Package importer owns bringing memories from elsewhere into infmem: it
// reads the formats other memory tools and chat services write (the
// reference MCP memory server's memory.jsonl, Claude Code memory files,
// folders of Markdown notes, mcp-memory-service's SQLite database, the
// ChatGPT and Claude.ai data exports, and infmem's own JSON export),
// checks the whole input against the memory engine's rules before the
// first write, stores it through the engine, and keeps a ledger of what it
// imported so importing the same input again adds nothing.
//
// Reading (Read) and writing (Run) are separate so a dry run reads and
// checks everything and writes nothing.
package importer
