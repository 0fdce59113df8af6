// Package backup owns copies of the memory outside the live database:
// mongodump-format archives (backups/backup_<UTC time>.archive.gz, .age
// when encrypted, with a manifest beside each), their age encryption
// (recipients or a passphrase), retention, verified restore into staging
// collections swapped in under a journal, user-readable export, the
// free-space floor of both, and the backup state status shows
// (ReadState). How each works, step by step: docs/BACKUPS.md.
package backup
