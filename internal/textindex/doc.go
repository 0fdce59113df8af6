// Package textindex owns the in-memory keyword index of the memory engine:
// the text analysis (Unicode normalisation, tokenisation, English stop words
// and the Porter2 stemmer) and a BM25 index over every live memory's text.
// retrieve_memory ranks keyword matches with it after the caller's pre-filter
// (scope, tags, time range, flags), which it passes as a predicate over DocIDs.
// A query term no document holds gets the closest terms documents do hold as
// alternatives (Fuzzy: typos, "oneill" for "o'neill"); an alternative scores
// like any term and counts once in the query's ideal score.
//
// The index holds no document text and knows nothing of scopes or storage: the
// memory engine maps its memories to dense DocIDs, calls Add on every write and
// Remove on every delete, and fuses Search or ScoreDocs results with vector
// similarity. An index read back from its persisted form (Read) keeps its
// lists in one arena outside the Go heap where the system allows (arena.go).
package textindex
