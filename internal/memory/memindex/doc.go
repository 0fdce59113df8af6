// Package memindex owns the memory engine's in-memory index: a mirror of
// every memory and summary (scope, tags, time, flags, speaker, the period
// its text refers to, use count, content key), its text in a keyword index
// (textindex) and its embedding in a vector index (vecindex), each memory
// in one slot of all three. It answers what the engine asks without the
// database: filtered scans and counts (and when the memories of a listing
// happened: Spread, spread.go), exact duplicates by content key,
// similar memories by cosine, keyword matches, conversations and the turns
// next to a memory, ranking candidates with their evidence (a summary is a
// way in to its conversation's turns, never in their place: summaries.go),
// whether results are by or about the people a query names (NamesAbsent),
// and duplicate groups for maintenance. It reads and writes itself as the
// snapshot file (snapshot.go), and writes and reads the change journal
// that names what changed since (journal.go).
//
// The index knows nothing of storage or of when a snapshot may be trusted:
// the memory engine keeps it current with every write it makes (Put,
// SetVec, SetForgotten, SetFlag, Remove, Touch) and decides which snapshot
// to load. Every method takes the index's lock itself; nothing outside the
// package sees it or the slots behind it.
package memindex
