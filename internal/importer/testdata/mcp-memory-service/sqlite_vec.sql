-- The shape of mcp-memory-service's sqlite_vec.db (its sqlite_vec
-- backend, v10): the metadata and memories tables as the service creates
-- them, and its sqlite-vec virtual table of embeddings, declared the way
-- the service declares it (infmem never reads it, and the module is not
-- needed to read the rest).
CREATE TABLE metadata (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT INTO metadata VALUES ('distance_metric', 'cosine');
INSERT INTO metadata VALUES ('embedding_model', 'all-MiniLM-L6-v2');

CREATE TABLE memories (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    content_hash TEXT UNIQUE NOT NULL,
    content TEXT NOT NULL,
    tags TEXT,
    memory_type TEXT,
    metadata TEXT,
    created_at REAL,
    updated_at REAL,
    created_at_iso TEXT,
    updated_at_iso TEXT,
    deleted_at REAL DEFAULT NULL
);
-- Added by the service's migration 011_memory_evolution_p1.sql (v10):
-- an update keeps the old memory, superseded_by the new one's hash.
ALTER TABLE memories ADD COLUMN parent_id TEXT;
ALTER TABLE memories ADD COLUMN version INTEGER DEFAULT 1;
ALTER TABLE memories ADD COLUMN confidence REAL DEFAULT 1.0;
ALTER TABLE memories ADD COLUMN last_accessed INTEGER;
ALTER TABLE memories ADD COLUMN superseded_by TEXT;
CREATE INDEX idx_content_hash ON memories(content_hash);
CREATE INDEX idx_created_at ON memories(created_at);
CREATE INDEX idx_memory_type ON memories(memory_type);

INSERT INTO memories (content_hash, content, tags, memory_type, metadata, created_at, updated_at, created_at_iso, updated_at_iso) VALUES
('5d1c7a0e4b0f4fd2a3c8e1f6b9d24a77c3e5f0a1b2c3d4e5f60718293a4b5c6d', 'Decided to use PostgreSQL 16 for the billing service; SQLite stays for the CLI cache.', 'architecture,decision,billing', 'decision', '{"source":"claude-desktop"}', 1717401600.25, 1717401600.25, '2024-06-03T08:00:00.250000Z', '2024-06-03T08:00:00.250000Z'),
('9a8b7c6d5e4f30211f2e3d4c5b6a79880a1b2c3d4e5f60718293a4b5c6d7e8f9', 'The staging database password rotates on the first Monday of each month.', 'ops,staging', 'note', '{}', 1718870400.0, 1718870400.0, '2024-06-20T08:00:00Z', '2024-06-20T08:00:00Z'),
('0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0', 'Weekly sync with the payments team moved to Thursdays at 15:00 CET.', '["meeting","payments"]', 'reminder', NULL, NULL, NULL, '2024-07-04T13:30:00Z', '2024-07-04T13:30:00Z'),
('aa11bb22cc33dd44ee55ff6600778899aabbccddeeff00112233445566778899', 'Old idea: rewrite the exporter in Go (dropped).', 'idea', 'idea', '{}', 1700000000.0, 1700000000.0, '2023-11-14T22:13:20Z', '2023-11-14T22:13:20Z'),
('bb22cc33dd44ee55ff66007788990011aabbccddeeff00112233445566778899', 'Use ruff instead of flake8 in every Python repository.', 'python,tooling,', NULL, NULL, 1721999999.5, 1721999999.5, '2024-07-26T13:19:59.500000Z', '2024-07-26T13:19:59.500000Z');
-- An older version of the weekly sync, which the service keeps but no
-- longer returns.
INSERT INTO memories (content_hash, content, tags, memory_type, metadata, created_at, updated_at, created_at_iso, updated_at_iso, superseded_by) VALUES
('cc33dd44ee55ff6600778899aabbccddeeff0011223344556677889900aabbcc', 'Weekly sync with the payments team is on Wednesdays at 10:00 CET.', 'meeting,payments', 'reminder', '{}', 1717000000.0, 1717000000.0, '2024-05-29T16:26:40Z', '2024-05-29T16:26:40Z', '0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0');
-- A memory the service deleted (kept as a tombstone for sync).
UPDATE memories SET deleted_at = 1720000000.0 WHERE content_hash = 'aa11bb22cc33dd44ee55ff6600778899aabbccddeeff00112233445566778899';
