// Package memory owns the memory engine: storing, recalling, updating,
// forgetting and maintaining memories and summaries, and the user profile,
// on top of mongostore (the documents) and scopes (where they belong).
//
// Every live memory and summary is mirrored in an in-memory index
// (memindex: scope, tags, time, flags, speaker, the period its text refers
// to, a BM25 keyword index of its text and its embedding), loaded in the
// background at start and kept current by every write this engine makes.
// Queries are answered from that index and only their results are read
// from the database, by _id: no request path scans a collection.
//
// What the package holds, by file:
//   - engine.go: options, start-up (the index from its snapshot or the
//     database), Reload after a restore, Close.
//   - store.go, update.go, forget.go, userprofile.go, scopeops.go: the
//     tools' operations, with their input checks (resolve.go for scopes;
//     text, tags, the other fields and stored documents by package content,
//     the profile's by package profile).
//   - write.go: apply, the one path every change to a memory takes
//     (journal, database, embedding, index, embed queue, observer), and
//     the collection a memory's kind lives in; follower.go: its one
//     observer, the Follower, which package memsync implements to keep
//     several devices sharing a database in step (the engine knows no
//     change feed).
//   - search.go, ranked.go, results.go: recall. Ranking is
//     package recall's (query.go reads a question: keywords without
//     filler, typo alternatives, the period its time words name; people.go
//     turns "my sister" into the profile's name for her; rank.go weighs
//     the evidence the index gathers and gives each result a confidence
//     and the relevance bar its verdict, both fitted on every recall set
//     at once by `infmem-bench recall --calibrate`); ranked.go hands it
//     the index, the embedder and the profile's contacts; current.go
//     moves the current value first). supersede.go records the links
//     recall's relate.go finds at store time (updates, contradictions).
//   - snapshot.go: when the index snapshot is trusted (the rule is stated
//     at its top), with the change journal that keeps it usable after a
//     crash (memindex/journal.go).
//   - paths.go: memories with a path (exact text, written by WritePaths),
//     which package memfiles makes the files of Anthropic's memory tool.
//   - maint.go: what scheduled maintenance asks (conversations to
//     summarise, summaries, archival, duplicates and merges, purges,
//     embeddings to reconcile).
//   - embedworker.go, vectors.go: the background embedder and the
//     embeddings stored in MemoryIndex. Use counts are written off the
//     response path by package usecount, a batch at a time (writeUses: on
//     the embedded engine into the use log, folded into the documents
//     later by foldUses); Get adds those not yet in the documents. A crash
//     loses at most the uses not yet logged.
package memory
