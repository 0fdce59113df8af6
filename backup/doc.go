// Package backup owns copies of the memory outside the live database:
// mongodump-format archives, their age encryption, retention, verified
// restore, and user-readable export.
package backup
