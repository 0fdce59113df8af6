package webui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/infmem/infmem/backup"
)

// backupOut is one backup file as the backups view lists it: what its
// manifest says and how its last check from this page went. Nothing in it
// is secret (the manifest holds counts and a checksum, no content).
type backupOut struct {
	File       string    `json:"file"`
	CreatedAt  time.Time `json:"created_at"`
	Size       int64     `json:"size"`
	Kind       string    `json:"kind"`
	Encryption string    `json:"encryption"`
	Documents  int64     `json:"documents"`
	// Verify is the outcome of the last verification from this page, if
	// any.
	Verify *verifyOut `json:"verify,omitempty"`
}

// verifyOut is how a verification went: verified (decrypted and read
// completely), intact (size and checksum match its manifest, not
// decrypted: no key here), needs key, or failed.
type verifyOut struct {
	Status    string    `json:"status"`
	Problem   string    `json:"problem,omitempty"`
	Documents int64     `json:"documents,omitempty"`
	At        time.Time `json:"at"`
}

func (s *Server) backupSetup(ctx context.Context) (BackupSetup, error) {
	if s.opts.BackupSetup == nil {
		return BackupSetup{}, fmt.Errorf("%w: the backups view needs the daemon", errNoService)
	}
	return s.opts.BackupSetup(ctx)
}

// backupsView lists the backups, newest first, with where they are, how
// they are encrypted (the identity file's path, never its contents) and
// the schedule's state.
func (s *Server) backupsView(ctx context.Context, r *http.Request) (any, error) {
	setup, err := s.backupSetup(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := backup.List(setup.Dir)
	if err != nil {
		return nil, err
	}
	list := []backupOut{}
	s.verifyMu.Lock()
	for i := range entries {
		e := &entries[i]
		o := backupOut{File: e.File, CreatedAt: e.CreatedAt, Size: e.Size, Kind: string(e.Kind()), Encryption: e.Encryption()}
		if e.Manifest != nil {
			for _, n := range e.Manifest.Collections {
				o.Documents += n
			}
		}
		if v, ok := s.verified[e.File]; ok {
			o.Verify = &v
		}
		list = append(list, o)
	}
	s.verifyMu.Unlock()
	enc := "identity"
	switch {
	case setup.Encryption == "off":
		enc = "off"
	case setup.Recipients > 0:
		enc = "recipients"
	}
	identity := map[string]any{"path": setup.IdentityFile}
	if setup.IdentityFile != "" {
		_, err := os.Stat(setup.IdentityFile)
		identity["exists"] = err == nil
	}
	return map[string]any{"dir": setup.Dir, "encryption": enc, "encryption_setting": setup.Encryption, "recipients": setup.Recipients,
		"identity": identity, "state": setup.State, "backups": list, "running": s.runningTask("backup"),
		"verifying": s.runningTask("verify")}, nil
}

// backupNow starts a manual backup as a task the page polls for progress.
func (s *Server) backupNow(ctx context.Context, r *http.Request) (any, error) {
	if err := decode(r, &struct{}{}); err != nil {
		return nil, err
	}
	if s.opts.Backup == nil {
		return nil, fmt.Errorf("%w: backing up needs the daemon", errNoService)
	}
	return s.startTask("backup", "a backup", func(ctx context.Context, t *task) (any, error) {
		res, err := s.opts.Backup(ctx, func(p backup.Progress) { t.report(p) })
		if err != nil {
			return nil, err
		}
		return map[string]any{"file": res.File, "documents": res.Documents(), "encryption": res.Manifest.Encryption, "size": res.Manifest.Size}, nil
	})
}

type verifyIn struct {
	File string `json:"file"`
}

// verifyBackup checks one backup as a task: its size and checksum against
// its manifest, then, when this machine holds the key (the identity file)
// or it is not encrypted, decrypts and reads it completely. A backup
// encrypted with a passphrase is only checked against its manifest: the
// page never asks for a passphrase ('infmem backups --verify' does).
func (s *Server) verifyBackup(ctx context.Context, r *http.Request) (any, error) {
	var in verifyIn
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	setup, err := s.backupSetup(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := backup.List(setup.Dir)
	if err != nil {
		return nil, err
	}
	// Only a file the listing has: the name never becomes a path by itself.
	var entry *backup.Entry
	for i := range entries {
		if entries[i].File == in.File {
			entry = &entries[i]
		}
	}
	if entry == nil {
		return nil, badf("no backup named %q", in.File)
	}
	e := *entry
	return s.startTask("verify", "verifying "+e.File, func(ctx context.Context, t *task) (any, error) {
		v := s.verify(ctx, e, setup, t)
		s.verifyMu.Lock()
		if s.verified == nil {
			s.verified = map[string]verifyOut{}
		}
		s.verified[e.File] = v
		s.verifyMu.Unlock()
		return v, nil
	})
}

func (s *Server) verify(ctx context.Context, e backup.Entry, setup BackupSetup, t *task) verifyOut {
	out := verifyOut{At: s.opts.Now()}
	fail := func(status string, err error) verifyOut {
		out.Status, out.Problem = status, s.opts.Redact(err.Error())
		return out
	}
	intact := true
	if err := e.Check(); errors.Is(err, backup.ErrNoManifest) {
		intact = false
	} else if err != nil {
		return fail("failed", err)
	}
	var keys backup.Keys
	if e.Encrypted && e.Encryption() != "passphrase" {
		if setup.IdentityFile != "" {
			if k, err := backup.ReadIdentityFile(setup.IdentityFile); err == nil {
				keys = k
			}
		}
	}
	if e.Encryption() == "passphrase" {
		if intact {
			out.Status, out.Problem = "intact", "encrypted with a passphrase: checked against its manifest only; 'infmem backups --verify' reads it all"
			return out
		}
		return fail("needs key", errors.New("encrypted with a passphrase; 'infmem backups --verify' checks it"))
	}
	c, err := backup.Verify(ctx, e.Path, keys, func(p backup.Progress) { t.report(p) })
	switch {
	case errors.Is(err, backup.ErrKeyNeeded), errors.Is(err, backup.ErrWrongKey):
		if intact {
			out.Status, out.Problem = "intact", "the identity file here does not open it: checked against its manifest only"
			return out
		}
		return fail("needs key", err)
	case err != nil:
		return fail("failed", err)
	}
	out.Status, out.Documents = "verified", c.Documents()
	return out
}
