// Package memory owns the memory engine: storing, recalling, updating and
// forgetting memories and the user profile, on top of mongostore and scopes.
//
// Every live memory and summary is mirrored in an in-memory index (scope,
// tags, time, flags, and a BM25 keyword index of its text) loaded in the
// background at start and kept current by every write this engine makes.
// Queries are answered from that index and only the results are fetched from
// the database, by _id: no request path scans a collection.
package memory
