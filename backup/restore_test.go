package backup

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/infmem/infmem/mongostore"
)

// wipe drops every collection and leaves something else in their place, so
// a restore that did nothing cannot pass for one that worked.
func wipe(t *testing.T, s *mongostore.Store) {
	t.Helper()
	ctx := context.Background()
	for _, n := range mongostore.CollectionNames {
		if err := s.Database().Collection(n).Drop(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Database().Collection(mongostore.ConversationHistory).InsertOne(ctx, bson.D{{Key: "text", Value: "not from the backup"}}); err != nil {
		t.Fatal(err)
	}
}

// assertLiveUnchanged checks that the database equals before and that a
// refused or failed restore left nothing behind.
func assertLiveUnchanged(t *testing.T, env *testEnv, before snapshot) {
	t.Helper()
	if d := before.diff(takeSnapshot(t, env.store)); d != "" {
		t.Fatalf("live data changed: %s", d)
	}
	assertNoLeftovers(t, env)
}

func assertNoLeftovers(t *testing.T, env *testEnv) {
	t.Helper()
	names, err := env.store.Database().ListCollectionNames(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if isStaging(n) {
			t.Errorf("staging collection %s left behind", n)
		}
	}
	for _, dir := range []string{env.root.BackupsDir(), env.root.RunDir()} {
		des, _ := os.ReadDir(dir)
		for _, de := range des {
			if strings.HasSuffix(de.Name(), ".tmp") || de.Name() == journalFile {
				t.Errorf("%s left in %s", de.Name(), dir)
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 600)
	// A database with more than the five collections' documents: scopes,
	// forgotten and archived memories, embeddings, profile, schema record.
	before := takeSnapshot(t, env.store)
	ctx := context.Background()
	idFile := filepath.Join(t.TempDir(), "id.txt")
	recipient, err := GenerateIdentity(idFile, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	idKeys, err := ReadIdentityFile(idFile)
	if err != nil {
		t.Fatal(err)
	}
	pass := mustPassphrase(t, "correct horse battery staple")
	cases := []struct {
		name string
		enc  Encryption
		keys Keys
		ext  string
	}{
		{"plain", Encryption{}, Keys{}, ".archive.gz"},
		{"x25519", Encryption{Recipients: []string{recipient}}, idKeys, ".archive.gz.age"},
		{"passphrase", Encryption{Passphrase: pass, ScryptWorkFactor: testWorkFactor}, Keys{Passphrase: pass}, ".archive.gz.age"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Create(ctx, env.store, Options{Dir: env.root.BackupsDir(), Encryption: c.enc})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(res.File, "backup_") || !strings.HasSuffix(res.File, c.ext) {
				t.Fatalf("file name %s", res.File)
			}
			for _, p := range []string{res.Path, res.ManifestPath} {
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != 0o600 {
					t.Errorf("%s has mode %v, want 0600", p, fi.Mode().Perm())
				}
			}
			m := res.Manifest
			if m.Encryption != c.enc.Mode() || m.SchemaVersion != mongostore.SchemaVersion || m.Database != "claude_memory" ||
				m.Collections[mongostore.ConversationHistory] != 600 || m.Collections[mongostore.MemoryIndex] != 600 ||
				m.Collections[mongostore.UserProfile] != 1 || m.Kind != KindManual || m.Engine != mongostore.ModeEmbedded {
				t.Fatalf("manifest: %+v", m)
			}
			data, err := os.ReadFile(res.Path)
			if err != nil {
				t.Fatal(err)
			}
			if c.enc.Mode() != EncryptionNone {
				// Encrypted means no gzip, no archive, no memory text anywhere in the file.
				if !bytes.HasPrefix(data, []byte("age-encryption.org/v1\n")) {
					t.Fatalf("not an age file: %q", data[:30])
				}
			} else {
				zr, err := gzip.NewReader(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				head := make([]byte, 4)
				if _, err := zr.Read(head); err != nil || !bytes.Equal(head, archiveMagic) {
					t.Fatalf("not a gzip-compressed mongodump archive: %x %v", head, err)
				}
			}

			wipe(t, env.store)
			rr, err := Restore(ctx, env.store, res.Path, RestoreOptions{Keys: c.keys, RunDir: env.root.RunDir()})
			if err != nil {
				t.Fatal(err)
			}
			if d := before.diff(takeSnapshot(t, env.store)); d != "" {
				t.Fatalf("restored data differs: %s", d)
			}
			if rr.Contents.Documents() != res.Documents() || rr.SafetyBackup != nil {
				t.Fatalf("result: %+v", rr)
			}
			assertNoLeftovers(t, env)
			// The store's typed access works on the restored collections (the
			// _id lookups go through the SQLite indexes Prepare added).
			var mem mongostore.Memory
			if err := env.store.Memories.Raw().FindOne(ctx, bson.D{}).Decode(&mem); err != nil {
				t.Fatal(err)
			}
			if _, err := env.store.Memories.Get(ctx, mem.ID); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestVerifyContents(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 50)
	res, err := Create(context.Background(), env.store, Options{Dir: env.root.BackupsDir()})
	if err != nil {
		t.Fatal(err)
	}
	var reports []Progress
	c, err := Verify(context.Background(), res.Path, Keys{}, func(p Progress) { reports = append(reports, p) })
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	if c.Encryption != EncryptionNone || c.Database != "claude_memory" || c.SchemaVersion != 1 || c.Manifest == nil ||
		!c.From.Equal(want) || !c.To.Equal(want.Add(49*time.Hour)) || c.SHA256 != res.Manifest.SHA256 || len(c.Collections) != 5 {
		t.Fatalf("contents: %+v", c)
	}
	for i, cc := range c.Collections {
		if cc.Name != mongostore.CollectionNames[i] {
			t.Errorf("collection %d is %s, want the schema's order %v", i, cc.Name, mongostore.CollectionNames)
		}
		if cc.Documents != res.Manifest.Collections[cc.Name] {
			t.Errorf("%s: %d documents, manifest %d", cc.Name, cc.Documents, res.Manifest.Collections[cc.Name])
		}
		if cc.Name == mongostore.ConversationHistory && strings.Join(cc.Indexes, ",") != "_id_,conversation_id_1_timestamp_1,scope_1,tags_1,timestamp_1" {
			t.Errorf("indexes %v", cc.Indexes)
		}
	}
	if len(reports) == 0 || !reports[len(reports)-1].Done || reports[len(reports)-1].Op != "verify" {
		t.Fatalf("progress reports: %+v", reports)
	}
	if mode, err := EncryptionOf(res.Path); err != nil || mode != EncryptionNone {
		t.Fatalf("EncryptionOf: %q %v", mode, err)
	}
}

// TestRefusals feeds restore every kind of bad input and checks that each
// is refused with its own reason and message before anything changes.
func TestRefusals(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 200)
	ctx := context.Background()
	dir := env.root.BackupsDir()
	pass := mustPassphrase(t, "right passphrase")
	byPass, err := Create(ctx, env.store, Options{Dir: dir, Encryption: Encryption{Passphrase: pass, ScryptWorkFactor: testWorkFactor}})
	if err != nil {
		t.Fatal(err)
	}
	idFile := filepath.Join(t.TempDir(), "id.txt")
	recipient, _ := GenerateIdentity(idFile, time.Now())
	byKey, err := Create(ctx, env.store, Options{Dir: dir, Encryption: Encryption{Recipients: []string{recipient}}})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Create(ctx, env.store, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	otherFile := filepath.Join(t.TempDir(), "other.txt")
	if _, err := GenerateIdentity(otherFile, time.Now()); err != nil {
		t.Fatal(err)
	}
	otherKeys, _ := ReadIdentityFile(otherFile)
	rightKeys, _ := ReadIdentityFile(idFile)

	// The live data the refusals must not touch differs from the backups.
	if _, err := env.store.Memories.Raw().DeleteOne(ctx, bson.D{}); err != nil {
		t.Fatal(err)
	}
	before := takeSnapshot(t, env.store)

	// copyOf copies a backup (and, if withManifest, its manifest) under a
	// new name and lets edit change the copy.
	copyOf := func(t *testing.T, res *Result, withManifest bool, edit func([]byte) []byte) string {
		data, err := os.ReadFile(res.Path)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.Replace(res.File, "backup_", "backup_"+strings.ReplaceAll(t.Name(), "/", "-")+"_", 1)
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, edit(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if withManifest {
			m := res.Manifest
			m.File = name
			if err := writeManifestForTest(p, &m); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	flip := func(at func(n int) int) func([]byte) []byte {
		return func(b []byte) []byte { b[at(len(b))] ^= 0x40; return b }
	}
	truncate := func(b []byte) []byte { return b[:len(b)*2/3] }
	writeRaw := func(t *testing.T, data []byte) string {
		p := filepath.Join(t.TempDir(), "backup_2025-01-01T00-00-00Z.archive.gz")
		os.WriteFile(p, data, 0o600)
		return p
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("just some text, compressed"))
	zw.Close()

	cases := []struct {
		name   string
		file   func(t *testing.T) string
		keys   Keys
		reason error
		msg    string
	}{
		{"wrong passphrase", func(*testing.T) string { return byPass.Path }, Keys{Passphrase: mustPassphrase(t, "wrong")}, ErrWrongPassphrase, "the passphrase is wrong"},
		{"passphrase missing", func(*testing.T) string { return byPass.Path }, rightKeys, ErrKeyNeeded, "encrypted with a passphrase, and none was given"},
		{"wrong key", func(*testing.T) string { return byKey.Path }, otherKeys, ErrWrongKey, "no identity in " + otherFile + " can decrypt it"},
		{"key missing", func(*testing.T) string { return byKey.Path }, Keys{}, ErrKeyNeeded, "encrypted to an age key (X25519)"},
		{"passphrase for key", func(*testing.T) string { return byKey.Path }, Keys{Passphrase: pass}, ErrKeyNeeded, "no identity file was given"},
		{"truncated encrypted", func(t *testing.T) string { return copyOf(t, byKey, true, truncate) }, rightKeys, ErrTruncated, "the file is truncated: it has"},
		{"truncated plain", func(t *testing.T) string { return copyOf(t, plain, true, truncate) }, Keys{}, ErrTruncated, "the file is truncated: it has"},
		{"truncated encrypted, no manifest", func(t *testing.T) string { return copyOf(t, byKey, false, truncate) }, rightKeys, ErrDamaged, "fails authentication: the file is truncated, damaged, or was modified"},
		{"truncated plain, no manifest", func(t *testing.T) string { return copyOf(t, plain, false, truncate) }, Keys{}, ErrTruncated, "ends before its compressed content does"},
		{"flipped byte in payload", func(t *testing.T) string { return copyOf(t, byPass, true, flip(func(n int) int { return n / 2 })) }, Keys{Passphrase: pass}, ErrDamaged, "fails authentication"},
		{"changed salt in header", func(t *testing.T) string { return copyOf(t, byPass, true, swapCaseAfter("-> scrypt ")) }, Keys{Passphrase: pass}, ErrDamaged, "does not match the checksum in its manifest"},
		{"changed key stanza, no manifest", func(t *testing.T) string { return copyOf(t, byKey, false, swapCaseAfter("-> X25519 ")) }, rightKeys, ErrWrongKey, "can decrypt it"},
		{"broken header syntax", func(t *testing.T) string { return copyOf(t, byKey, false, flip(func(int) int { return 3 })) }, rightKeys, ErrNotBackup, "neither age-encrypted"},
		{"broken header line", func(t *testing.T) string { return copyOf(t, byKey, false, replaceOnce("\n--- ", "\n-- ")) }, rightKeys, ErrDamaged, "encryption header is damaged"},
		{"flipped byte in plain", func(t *testing.T) string { return copyOf(t, plain, true, flip(func(n int) int { return n / 2 })) }, Keys{}, ErrDamaged, "compressed content is damaged"},
		{"flipped byte in plain, gzip header", func(t *testing.T) string { return copyOf(t, plain, true, flip(func(int) int { return 5 })) }, Keys{}, ErrDamaged, "does not match the checksum in its manifest"},
		{"flipped byte in plain, no manifest", func(t *testing.T) string { return copyOf(t, plain, false, flip(func(n int) int { return n / 2 })) }, Keys{}, ErrDamaged, "compressed content is damaged"},
		{"damaged manifest", func(t *testing.T) string {
			p := copyOf(t, plain, true, func(b []byte) []byte { return b })
			os.WriteFile(manifestPath(p), []byte("{not json"), 0o600)
			return p
		}, Keys{}, ErrDamaged, "manifest.json is damaged; move the manifest away"},
		{"empty file", func(t *testing.T) string { return writeRaw(t, nil) }, Keys{}, ErrEmpty, "the file is empty"},
		{"not a backup", func(t *testing.T) string { return writeRaw(t, []byte("hello, I am a text file\n")) }, Keys{}, ErrNotBackup, "neither age-encrypted nor a gzip-compressed mongodump archive"},
		{"gzip but not an archive", func(t *testing.T) string { return writeRaw(t, gz.Bytes()) }, Keys{}, ErrNotBackup, "it decompresses, but not to a mongodump archive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.file(t)
			_, err := Restore(ctx, env.store, path, RestoreOptions{Keys: c.keys, RunDir: env.root.RunDir(), TempDir: dir,
				SafetyBackup: &Options{Dir: dir}})
			var r *RefusedError
			if !errors.As(err, &r) || !errors.Is(err, c.reason) {
				t.Fatalf("got %v, want refusal %v", err, c.reason)
			}
			if !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), filepath.Base(path)) {
				t.Fatalf("message %q lacks %q", err, c.msg)
			}
			if strings.Contains(err.Error(), "right passphrase") {
				t.Fatal("the passphrase leaked into the error")
			}
			assertLiveUnchanged(t, env, before)
			// Verify refuses the same file for the same reason.
			if _, err := Verify(ctx, path, c.keys, nil); !errors.Is(err, c.reason) {
				t.Fatalf("Verify: %v", err)
			}
		})
	}
	// No safety backup was taken for any refused input.
	entries, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Fatalf("%d backups in %s, want the 3 made above", len(entries), dir)
	}
}

func writeManifestForTest(path string, m *Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(manifestPath(path), data, 0o600)
}

func TestRestoreNewerSchemaRefused(t *testing.T) {
	env := openTestStore(t)
	ctx := context.Background()
	set := func(v int) {
		err := env.store.PutMeta(ctx, "schema", bson.D{{Key: "_id", Value: "schema"}, {Key: "type", Value: "schema"}, {Key: "version", Value: v}})
		if err != nil {
			t.Fatal(err)
		}
	}
	set(mongostore.SchemaVersion + 1)
	res, err := Create(ctx, env.store, Options{Dir: env.root.BackupsDir()})
	if err != nil {
		t.Fatal(err)
	}
	set(mongostore.SchemaVersion)
	before := takeSnapshot(t, env.store)
	_, err = Restore(ctx, env.store, res.Path, RestoreOptions{RunDir: env.root.RunDir()})
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "schema version 2") {
		t.Fatalf("got %v", err)
	}
	assertLiveUnchanged(t, env, before)
}

// fakePauser records how the restore used it, and checks what clients
// would see at each point.
type fakePauser struct {
	t          *testing.T
	env        *testEnv
	atPause    snapshot
	pauseErr   error
	resumed    []bool
	pausedSeen bool
}

func (p *fakePauser) Pause(ctx context.Context) (func(bool) error, error) {
	if p.pauseErr != nil {
		return nil, p.pauseErr
	}
	p.pausedSeen = true
	// The backup is fully loaded by now, but the live data is untouched.
	now := takeSnapshot(p.t, p.env.store)
	// The staging collections exist; the live ones must not have changed.
	delete(now, "collections")
	want := maps.Clone(p.atPause)
	delete(want, "collections")
	if d := want.diff(now); d != "" {
		p.t.Errorf("live data changed before the pause: %s", d)
	}
	return func(reload bool) error { p.resumed = append(p.resumed, reload); return nil }, nil
}

func TestRestorePausesAndTakesSafetyBackup(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 100)
	ctx := context.Background()
	res, err := Create(ctx, env.store, Options{Dir: env.root.BackupsDir()})
	if err != nil {
		t.Fatal(err)
	}
	backedUp := takeSnapshot(t, env.store)
	// Change the live data after the backup; the safety backup must hold this state.
	if _, err := env.store.Memories.Raw().DeleteMany(ctx, bson.D{{Key: "scope", Value: "ProjectAlpha"}}); err != nil {
		t.Fatal(err)
	}
	changed := takeSnapshot(t, env.store)
	pass := mustPassphrase(t, "safety")
	p := &fakePauser{t: t, env: env, atPause: changed}
	rr, err := Restore(ctx, env.store, res.Path, RestoreOptions{RunDir: env.root.RunDir(), Pauser: p,
		SafetyBackup: &Options{Dir: env.root.BackupsDir(), Encryption: Encryption{Passphrase: pass, ScryptWorkFactor: testWorkFactor}}})
	if err != nil {
		t.Fatal(err)
	}
	if !p.pausedSeen || len(p.resumed) != 1 || !p.resumed[0] {
		t.Fatalf("pauser: paused=%v resumed=%v", p.pausedSeen, p.resumed)
	}
	if d := backedUp.diff(takeSnapshot(t, env.store)); d != "" {
		t.Fatal(d)
	}
	sb := rr.SafetyBackup
	if sb == nil || sb.Manifest.Kind != KindSafety || sb.Manifest.Encryption != EncryptionPassphrase {
		t.Fatalf("safety backup: %+v", sb)
	}
	st, err := ReadStatus(ctx, env.store)
	if err != nil || st.LastBackup == nil || st.LastBackup.File != sb.File {
		t.Fatalf("status after restore: %+v %v", st, err)
	}
	// The safety backup brings back the state the restore replaced.
	if _, err := Restore(ctx, env.store, sb.Path, RestoreOptions{RunDir: env.root.RunDir(), Keys: Keys{Passphrase: pass}}); err != nil {
		t.Fatal(err)
	}
	if d := changed.diff(takeSnapshot(t, env.store)); d != "" {
		t.Fatal(d)
	}
	assertNoLeftovers(t, env)
}

func TestRestoreFailuresLeaveLiveData(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 100)
	ctx := context.Background()
	res, err := Create(ctx, env.store, Options{Dir: env.root.BackupsDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.store.Memories.Raw().DeleteMany(ctx, bson.D{{Key: "scope", Value: "Global"}}); err != nil {
		t.Fatal(err)
	}
	before := takeSnapshot(t, env.store)

	t.Run("pause refused", func(t *testing.T) {
		p := &fakePauser{pauseErr: errors.New("daemon busy")}
		_, err := Restore(ctx, env.store, res.Path, RestoreOptions{RunDir: env.root.RunDir(), Pauser: p})
		if err == nil || !strings.Contains(err.Error(), "daemon busy") || !strings.Contains(err.Error(), "the live data is unchanged") {
			t.Fatalf("got %v", err)
		}
		assertLiveUnchanged(t, env, before)
	})
	t.Run("safety backup fails", func(t *testing.T) {
		notDir := filepath.Join(t.TempDir(), "file")
		os.WriteFile(notDir, nil, 0o600)
		p := &fakePauser{t: t, env: env, atPause: before}
		_, err := Restore(ctx, env.store, res.Path, RestoreOptions{RunDir: env.root.RunDir(), Pauser: p, SafetyBackup: &Options{Dir: notDir}})
		if err == nil || !strings.Contains(err.Error(), "cannot take the safety backup") {
			t.Fatalf("got %v", err)
		}
		if len(p.resumed) != 1 || p.resumed[0] {
			t.Fatalf("resume calls %v, want one without reload", p.resumed)
		}
		assertLiveUnchanged(t, env, before)
	})
	t.Run("cancelled while loading", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		_, err := Restore(cctx, env.store, res.Path, RestoreOptions{RunDir: env.root.RunDir(), Progress: func(p Progress) {
			if p.Step == "loading" {
				cancel()
			}
		}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v", err)
		}
		assertLiveUnchanged(t, env, before)
	})
	t.Run("another restore holds the lock", func(t *testing.T) {
		lock, err := lockRestore(env.root.RunDir())
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Release()
		_, err = Restore(ctx, env.store, res.Path, RestoreOptions{RunDir: env.root.RunDir()})
		if err == nil || !strings.Contains(err.Error(), "another restore is running") {
			t.Fatalf("got %v", err)
		}
		assertLiveUnchanged(t, env, before)
	})
}

// TestRecoverInterruptedRestore simulates a crash at each phase of a
// restore and checks that recovery leaves a consistent database.
func TestRecoverInterruptedRestore(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 100)
	ctx := context.Background()
	res, err := Create(ctx, env.store, Options{Dir: env.root.BackupsDir()})
	if err != nil {
		t.Fatal(err)
	}
	restored := takeSnapshot(t, env.store)
	if _, err := env.store.Memories.Raw().DeleteMany(ctx, bson.D{{Key: "scope", Value: "Global"}}); err != nil {
		t.Fatal(err)
	}
	live := takeSnapshot(t, env.store)
	runDir := env.root.RunDir()

	// stageOnly runs a restore up to (and including) loading the staging collections.
	stageOnly := func(t *testing.T) *restorer {
		rep := newReporter(nil, "restore")
		vc, err := verifyToTemp(ctx, res.Path, RestoreOptions{RunDir: runDir, TempDir: env.root.BackupsDir()}, rep)
		if err != nil {
			t.Fatal(err)
		}
		// A crash would leave the temporary copy; retention removes it later.
		defer vc.remove()
		r := &restorer{store: env.store, db: env.store.Database(), token: "deadbeef", runDir: runDir, log: testLogger(t), sum: vc.summary}
		for _, c := range vc.summary.collections {
			r.names = append(r.names, c.name)
		}
		if err := r.writeJournal(phaseStaging); err != nil {
			t.Fatal(err)
		}
		if err := r.stage(ctx, vc, rep); err != nil {
			t.Fatal(err)
		}
		return r
	}

	t.Run("during staging", func(t *testing.T) {
		stageOnly(t)
		ok, err := RecoverRestore(ctx, env.store, runDir, testLogger(t))
		if err != nil || !ok {
			t.Fatalf("recover: %v %v", ok, err)
		}
		assertLiveUnchanged(t, env, live)
	})
	t.Run("half-way through the swap", func(t *testing.T) {
		r := stageOnly(t)
		r.hadLive = append([]string(nil), r.names...)
		if err := r.writeJournal(phaseSwapping); err != nil {
			t.Fatal(err)
		}
		// Two collections fully swapped, a third moved aside only.
		for _, n := range r.names[:2] {
			must(t, r.rename(ctx, n, r.replaced(n)))
			must(t, r.rename(ctx, r.staged(n), n))
		}
		must(t, r.rename(ctx, r.names[2], r.replaced(r.names[2])))
		ok, err := RecoverRestore(ctx, env.store, runDir, testLogger(t))
		if err != nil || !ok {
			t.Fatalf("recover: %v %v", ok, err)
		}
		assertLiveUnchanged(t, env, live)
	})
	t.Run("after the swap, while dropping", func(t *testing.T) {
		r := stageOnly(t)
		r.hadLive = append([]string(nil), r.names...)
		for _, n := range r.names {
			must(t, r.rename(ctx, n, r.replaced(n)))
			must(t, r.rename(ctx, r.staged(n), n))
		}
		if err := r.writeJournal(phaseDropping); err != nil {
			t.Fatal(err)
		}
		ok, err := RecoverRestore(ctx, env.store, runDir, testLogger(t))
		if err != nil || !ok {
			t.Fatalf("recover: %v %v", ok, err)
		}
		assertLiveUnchanged(t, env, restored)
	})
	// Killed between moving a live collection aside and moving its
	// restored data in; the next open's bootstrap re-creates the name with
	// its defaults before recovery runs (the daemon, status and backup all
	// open the database first).
	t.Run("moved aside, then an open re-created the name", func(t *testing.T) {
		before := takeSnapshot(t, env.store)
		r := stageOnly(t)
		r.hadLive = append([]string(nil), r.names...)
		must(t, r.writeJournal(phaseSwapping))
		for _, n := range []string{mongostore.Metadata, mongostore.UserProfile} {
			if !slices.Contains(r.names, n) {
				t.Fatalf("the backup has no %s", n)
			}
			must(t, r.rename(ctx, n, r.replaced(n)))
		}
		// An unknown document in a re-created collection is not the
		// bootstrap's: recovery refuses and changes nothing.
		env.store.Close(ctx)
		reopened := openStoreAt(t, env.root)
		env.store = reopened
		stray := bson.D{{Key: "_id", Value: "written-after"}, {Key: "type", Value: "note"}}
		if _, err := reopened.Database().Collection(mongostore.Metadata).InsertOne(ctx, stray); err != nil {
			t.Fatal(err)
		}
		ok, err := RecoverRestore(ctx, reopened, runDir, testLogger(t))
		if err == nil || !strings.Contains(err.Error(), "written after the restore was interrupted") {
			t.Fatalf("recover over a written collection: %v %v", ok, err)
		}
		if _, err := reopened.Database().Collection(mongostore.Metadata).DeleteOne(ctx, bson.D{{Key: "_id", Value: "written-after"}}); err != nil {
			t.Fatal(err)
		}
		ok, err = RecoverRestore(ctx, reopened, runDir, testLogger(t))
		if err != nil || !ok {
			t.Fatalf("recover: %v %v", ok, err)
		}
		assertLiveUnchanged(t, env, before)
	})
	t.Run("nothing to recover", func(t *testing.T) {
		ok, err := RecoverRestore(ctx, env.store, runDir, nil)
		if err != nil || ok {
			t.Fatalf("recover: %v %v", ok, err)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// swapCaseAfter swaps the case of the first letter after marker: the file
// stays well-formed but says something else.
func swapCaseAfter(marker string) func([]byte) []byte {
	return func(b []byte) []byte {
		i := bytes.Index(b, []byte(marker)) + len(marker)
		for ; i < len(b); i++ {
			if c := b[i]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
				b[i] ^= 0x20
				return b
			}
		}
		panic("no letter after " + marker)
	}
}

func replaceOnce(old, new string) func([]byte) []byte {
	return func(b []byte) []byte { return bytes.Replace(b, []byte(old), []byte(new), 1) }
}

func TestRestoreRefusesForeignArchive(t *testing.T) {
	env := openTestStore(t)
	ctx := context.Background()
	// A real mongodump archive, of a database that is not infmem's: it
	// lacks the UserProfile collection.
	must(t, env.store.Profiles.Raw().Drop(ctx))
	path := filepath.Join(t.TempDir(), "foreign.archive.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	must(t, dumpInto(ctx, env.store, zw, newReporter(nil, "backup")))
	must(t, zw.Close())
	must(t, f.Close())
	before := takeSnapshot(t, env.store)
	_, err = Restore(ctx, env.store, path, RestoreOptions{RunDir: env.root.RunDir()})
	if !errors.Is(err, ErrNotBackup) || !strings.Contains(err.Error(), "it has no UserProfile collection") {
		t.Fatalf("got %v", err)
	}
	assertLiveUnchanged(t, env, before)
}

// dumpOf writes a real mongodump archive of src's database to a file.
func dumpOf(t *testing.T, src *testEnv) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "crafted.archive.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	must(t, dumpInto(context.Background(), src.store, zw, newReporter(nil, "backup")))
	must(t, zw.Close())
	must(t, f.Close())
	return path
}

// TestRestoreRefusesWhatToolsWouldNot: a backup is data from outside. An
// extra collection, or a document the tools would refuse (too many tags, a
// bad scope name), makes the whole archive refused with the offender named
// and the live data untouched; index specifications in the archive (a TTL
// index) are never recreated (issue 13).
func TestRestoreRefusesWhatToolsWouldNot(t *testing.T) {
	ctx := context.Background()
	live := openTestStore(t)
	populate(t, live.store, 20)
	before := takeSnapshot(t, live.store)

	t.Run("extra collection", func(t *testing.T) {
		src := openTestStore(t)
		_, err := src.store.Database().Collection("Evil").InsertOne(ctx, bson.D{{Key: "x", Value: 1}})
		must(t, err)
		_, err = Restore(ctx, live.store, dumpOf(t, src), RestoreOptions{RunDir: live.root.RunDir()})
		if !errors.Is(err, ErrNotBackup) || !strings.Contains(err.Error(), `collection "Evil"`) {
			t.Fatalf("got %v", err)
		}
		assertLiveUnchanged(t, live, before)
	})
	for _, c := range []struct {
		name, want string
		doc        bson.D
	}{
		{"too many tags", "it has 40 tags; the limit is 32", bson.D{{Key: "tags", Value: func() bson.A {
			var a bson.A
			for i := range 40 {
				a = append(a, fmt.Sprintf("t%d", i))
			}
			return a
		}()}}},
		{"bad scope name", "its scope: invalid scope name", bson.D{{Key: "scope", Value: "ALL"}}},
		{"wrong type", "it is not a memory", bson.D{{Key: "text", Value: 42}}},
		{"empty text", "its text is empty", bson.D{{Key: "text", Value: "  "}}},
		{"importance out of range", "its importance is 7", bson.D{{Key: "importance", Value: 7.0}}},
		{"unknown source", `its source "evil" is not one of`, bson.D{{Key: "source", Value: "evil"}}},
		{"timestamp out of range", "its timestamp 3000-01-01T00:00:00Z is not between", bson.D{{Key: "timestamp", Value: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}}},
		{"multi-line speaker", "its speaker", bson.D{{Key: "speaker", Value: "a\nb"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := openTestStore(t)
			populate(t, src.store, 5)
			id := bson.NewObjectID()
			doc := bson.D{{Key: "_id", Value: id}, {Key: "text", Value: "crafted"}, {Key: "scope", Value: "Global"}, {Key: "tags", Value: bson.A{}},
				{Key: "timestamp", Value: time.Now()}, {Key: "created_at", Value: time.Now()}, {Key: "importance", Value: 0.5},
				{Key: "source", Value: "note"}, {Key: "speaker", Value: "user"}}
			for _, e := range c.doc {
				for i := range doc {
					if doc[i].Key == e.Key {
						doc[i].Value = e.Value
					}
				}
			}
			_, err := src.store.Database().Collection(mongostore.ConversationHistory).InsertOne(ctx, doc)
			must(t, err)
			_, err = Restore(ctx, live.store, dumpOf(t, src), RestoreOptions{RunDir: live.root.RunDir()})
			if !errors.Is(err, ErrNotBackup) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), id.Hex()) {
				t.Fatalf("got %v", err)
			}
			assertLiveUnchanged(t, live, before)
		})
	}
	t.Run("archive collection options are not used", func(t *testing.T) {
		src := openTestStore(t)
		db := src.store.Database()
		must(t, db.Collection(mongostore.Summaries).Drop(ctx))
		must(t, db.CreateCollection(ctx, mongostore.Summaries, options.CreateCollection().SetCapped(true).SetSizeInBytes(4096)))
		populate(t, src.store, 3)
		if _, err := Restore(ctx, live.store, dumpOf(t, src), RestoreOptions{RunDir: live.root.RunDir()}); err != nil {
			t.Fatal(err)
		}
		var info struct {
			Cursor struct {
				FirstBatch []struct {
					Name    string `bson:"name"`
					Options bson.M `bson:"options"`
				} `bson:"firstBatch"`
			} `bson:"cursor"`
		}
		must(t, live.store.Database().RunCommand(ctx, bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: mongostore.Summaries}}}}).Decode(&info))
		if len(info.Cursor.FirstBatch) != 1 || info.Cursor.FirstBatch[0].Options["capped"] == true {
			t.Fatalf("the archive's collection options were used: %+v", info.Cursor.FirstBatch)
		}
	})
	t.Run("archive index specs are not used", func(t *testing.T) {
		src := openTestStore(t)
		populate(t, src.store, 5)
		_, err := src.store.Database().Collection(mongostore.ConversationHistory).Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "importance", Value: 1}},
			Options: options.Index().SetName("crafted_importance")})
		must(t, err)
		if _, err := Restore(ctx, live.store, dumpOf(t, src), RestoreOptions{RunDir: live.root.RunDir()}); err != nil {
			t.Fatal(err)
		}
		specs, err := live.store.Database().Collection(mongostore.ConversationHistory).Indexes().ListSpecifications(ctx)
		must(t, err)
		for _, s := range specs {
			if s.Name == "crafted_importance" {
				t.Fatalf("the archive's index was recreated: %+v", specs)
			}
		}
		if len(specs) < 2 {
			t.Fatalf("the schema's indexes are missing: %+v", specs)
		}
	})
}
