// Package memory owns the memory engine: storing, recalling, updating and
// forgetting memories and the user profile, on top of mongostore and scopes.
//
// Every live memory and summary is mirrored in an in-memory index (scope,
// tags, time, flags, speaker, the time its text refers to, a BM25 keyword
// index of its text and its embedding) loaded in the background at start and
// kept current by every write this engine makes. Queries are ranked from
// that index (rank.go: keyword coverage, cosine, neighbouring turns, the
// speaker and period a question names; confidences calibrated on LoCoMo)
// and only the results are fetched from the database, by _id: no request
// path scans a collection.
package memory
