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
// checks everything and writes nothing. Text is measured and compared in
// the engine's own canonical form (memory.NormalizeContent and
// memory.FoldContent), so what the plan counts is what the engine stores.
//
// # Repeated texts
//
// The engine stores the same text once per scope (case and spacing
// aside), and an import goes through the same rule as any store: a chat
// message whose text is already a memory of its scope ("ok", "thanks",
// the same question asked in two conversations) is not stored again; the
// report counts it as already present and the ledger records it, so a
// second import does not count it again. What is lost is the second
// copy's link to its conversation and its time: that conversation's
// transcript, and so its summary, lacks the message. This was kept on
// purpose: the texts that repeat word for word are almost always
// acknowledgements, which maintenance's noise job archives after a day
// anyway, and the rare repeated question keeps its answer (a different
// text) in each conversation; a live client storing the same messages
// through the MCP tools gets the same result; and keeping a copy per
// conversation would need either a change to the engine's duplicate rule
// or altering the message's text, both worse than the loss.
//
// # Embedding
//
// Each worker (Options.Workers: the CPUs, at most 8) takes 32 items at a
// time, embeds their texts in one model call (memory.Engine.EmbedBatch:
// measured on the import benchmark's messages, a batch of 32 costs 16%
// less per message than single calls for long messages, about 100
// tokens, and 40% less for short ones), then stores each with
// memory.Engine.Store and its vector (StoreRequest.Vector), which skips
// the store's own model call. One goroutine stores the embedded batches,
// each with one memory.Engine.StoreMany; the batches that wait for it
// meanwhile are stored together (up to 256 items), since each StoreMany
// is a commit with its disk syncs, which on CPUs with AMX (fast
// embedding) came to cost more than the embedding. See BENCHMARKS.md,
// "Import (issue 15)" and "Speed at scale (issue 24)".
package importer
