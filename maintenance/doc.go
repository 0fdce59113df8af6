// Package maintenance owns scheduled upkeep of the memory: the cron scheduler
// and its jobs (summarization, archival, pruning, dedup, compaction).
package maintenance
