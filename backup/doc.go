// Package backup owns copies of the memory outside the live database:
// mongodump-format archives, their age encryption, retention, verified
// restore, and user-readable export.
//
// # Files
//
// A backup is backups/backup_<UTC time>.archive.gz (time as
// 2006-01-02T15-04-05Z, "-1", "-2"... added if taken in the same second),
// or .archive.gz.age when encrypted. Inside is the stream
// `mongodump --archive --gzip --db claude_memory` writes, produced by
// mongo-tools' own mongodump package, in the format
// `mongorestore --gzip --archive` reads (after `age -d`). Encryption is
// age (filippo.io/age): X25519 recipients from backup.recipients (so the
// daemon never holds a secret) or an scrypt passphrase. The archive streams
// from mongodump through gzip and age into a 0600 temporary file that is
// renamed into place only when complete; when encryption is on, plain text
// never reaches the disk.
//
// Beside each backup, backup_<UTC time>.manifest.json (plain JSON, 0600)
// records the infmem and schema versions, the engine, mongodump's server
// and tool versions, the encryption and public recipients, each
// collection's document count (counted from the archive as it was
// written), and the size and SHA-256 of the backup file. It holds no memory
// content, so listing and retention work without a key. A backup without
// its manifest (copied alone to another machine) still restores; the counts
// are then checked against the archive's own per-collection CRCs only.
//
// # Free space
//
// Create and Export keep a floor of free space on the file system they
// write to (DefaultMinFree: 1 % of its size, at least 256 MiB, at most
// 2 GiB; Options.Space and ExportOptions.Space override it). A backup is
// refused before it writes when the free space is under the floor, or
// would be after a backup the size of the last one; while it writes, the
// free space is measured every 4 MiB and the write stopped before it
// would cross the floor. Either way its temporary file is removed and the
// error is a *LowSpaceError (errors.Is ErrLowSpace) that says how much is
// free, where, and what to do. Exports do the same with their temporary
// folder. Free space that cannot be measured refuses nothing.
//
// # Restore
//
// Restore first decrypts and reads the whole file, checking age's
// authentication, gzip's CRC, the archive's structure and per-collection
// CRC64s, every BSON document, and the manifest; the verified stream is
// kept in a temporary file encrypted to a key that exists only in memory.
// Wrong keys, truncation, tampering and foreign files stop here as a
// *RefusedError (errors.Is with ErrWrongPassphrase, ErrWrongKey,
// ErrTruncated, ErrDamaged, ErrEmpty, ErrNotBackup, ErrKeyNeeded,
// ErrNewerSchema), with the live data untouched.
//
// The copy is then loaded with driver inserts, through mongo-tools'
// archive parser, into staging collections _infmem_restore_<token>_<name>
// of the live database; they get the schema's own indexes (never the
// archive's options or index specifications), the engine's _id
// indexes are prepared, and the inserted counts are checked. Only then is
// the Pauser (the daemon) paused, the safety backup taken, and each live
// collection renamed to _infmem_replaced_<token>_<name> and its staging
// collection renamed into its place. Renames stay within one database
// because FerretDB cannot rename across databases (and has no dropTarget);
// on MongoDB a same-database rename is a metadata operation. Neither
// engine has a transaction across renames here, so a journal in run/
// records the swap: a failed rename rolls every rename back at once, and
// RecoverRestore (run by the next restore, and by the daemon at start)
// rolls back a swap a crash interrupted. The staging and replaced
// collections are left out of backups.
//
// # Unattended use
//
// Job.Run is the scheduled backup (configured recipients, one retry,
// retention, outcome recorded in Metadata under StatusKey; see ReadStatus).
// Schedules parses the configured schedules for the scheduler. The MCP
// tools are one call each: backup_memory is
// Create(ctx, store, Options{Dir: root.BackupsDir(), Encryption: enc}) with
// enc from ConfiguredEncryption (whose error says how to configure
// recipients), and export_memory is Export(ctx, store,
// ExportOptions{Dir: root.ExportDir(), Scopes: ...}).
//
// Create does not pause writers: the daemon holds its writes while it runs
// if it wants one consistent snapshot across collections.
package backup
