package backup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"filippo.io/age"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/mongostore"
)

func TestPassphraseNeverPrints(t *testing.T) {
	p := mustPassphrase(t, "hunter2-secret")
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Info("x", "pass", p, "enc", Encryption{Passphrase: p}, "keys", Keys{Passphrase: p})
	fmt.Fprintf(&buf, "%v %s %+v %#v %q", p, p, Encryption{Passphrase: p}, Keys{Passphrase: p}, p)
	if strings.Contains(buf.String(), "hunter2") {
		t.Fatalf("passphrase printed: %s", buf.String())
	}
	if !strings.Contains(buf.String(), redacted) {
		t.Fatalf("no redaction marker: %s", buf.String())
	}
	if _, err := NewPassphrase(""); err == nil {
		t.Fatal("empty passphrase accepted")
	}
}

func TestGenerateIdentity(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "id.txt")
	r, err := GenerateIdentity(path, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := age.ParseX25519Recipient(r); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}
	keys, err := ReadIdentityFile(path)
	if err != nil || len(keys.Identities) != 1 || keys.Identities[0].(*age.X25519Identity).Recipient().String() != r {
		t.Fatalf("read back: %+v %v", keys, err)
	}
	before, _ := os.ReadFile(path)
	if _, err := GenerateIdentity(path, time.Now()); err == nil || !strings.Contains(err.Error(), "refusing to overwrite") {
		t.Fatalf("overwrite: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("the identity file changed")
	}
	bad := filepath.Join(t.TempDir(), "bad.txt")
	os.WriteFile(bad, []byte("AGE-SECRET-KEY-1NOTAKEY\n"), 0o600)
	if _, err := ReadIdentityFile(bad); err == nil || strings.Contains(err.Error(), "NOTAKEY") {
		t.Fatalf("bad identity file: %v", err)
	}
}

func TestConfiguredEncryption(t *testing.T) {
	r := "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"
	for _, c := range []struct {
		mode       string
		recipients []string
		want       string
		err        error
	}{
		{"auto", nil, "", ErrNoRecipients}, // no identity file known
		{"auto", []string{r}, EncryptionRecipients, nil},
		{"required", []string{r}, EncryptionRecipients, nil},
		{"required", nil, "", ErrNoRecipients},
		{"off", []string{r}, EncryptionNone, nil},
	} {
		enc, err := ConfiguredEncryption(config.Backup{Encryption: c.mode, Recipients: c.recipients})
		if !errors.Is(err, c.err) || err == nil && enc.Mode() != c.want {
			t.Errorf("%s %v: %v %v", c.mode, c.recipients, enc.Mode(), err)
		}
	}
}

// TestEncryptedByDefault: with the default config (no recipients) backups
// are encrypted to an identity made on first use (0600), the same one
// every time after; only encryption "off" writes plaintext.
func TestEncryptedByDefault(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", "backup-identity.txt")
	cfg := config.Defaults().Backup
	cfg.IdentityFile = path
	first, err := ConfiguredEncryption(cfg)
	if err != nil || first.Mode() != EncryptionRecipients || !first.NewIdentity || first.IdentityFile != path {
		t.Fatalf("first use: %+v %v", first, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("identity file: %v %v", fi, err)
	}
	again, err := ConfiguredEncryption(cfg)
	if err != nil || again.NewIdentity || !slices.Equal(again.Recipients, first.Recipients) {
		t.Fatalf("second use: %+v %v", again, err)
	}
	keys, err := ReadIdentityFile(path)
	if err != nil || len(keys.Identities) != 1 {
		t.Fatalf("identity: %v", err)
	}

	env := openTestStore(t)
	ctx := context.Background()
	res, err := Create(ctx, env.store, Options{Dir: env.root.BackupsDir(), Kind: KindManual, Encryption: first})
	if err != nil {
		t.Fatal(err)
	}
	if res.Manifest.Encryption != EncryptionRecipients || !strings.HasSuffix(res.File, ".age") {
		t.Fatalf("backup %+v is not encrypted", res)
	}
	if _, err := Verify(ctx, res.Path, keys, nil); err != nil {
		t.Fatalf("the made identity does not open the backup: %v", err)
	}
	cfg.Encryption = "off"
	if enc, err := ConfiguredEncryption(cfg); err != nil || enc.Mode() != EncryptionNone {
		t.Fatalf("off: %+v %v", enc, err)
	}
}

func TestConfigWarnings(t *testing.T) {
	r := "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"
	cfg := config.Defaults().Backup
	if w := ConfigWarnings(cfg); len(w) != 1 || !strings.Contains(w[0], "scheduled backups fail") {
		t.Fatalf("defaults without an identity file: %q", w)
	}
	cfg.IdentityFile = filepath.Join(t.TempDir(), "id.txt")
	if w := ConfigWarnings(cfg); len(w) != 1 || !strings.Contains(w[0], "key made when the daemon first runs (or at the first backup), in "+cfg.IdentityFile) {
		t.Fatalf("defaults before the first backup: %q", w)
	}
	if _, _, err := EnsureIdentity(cfg.IdentityFile, time.Now()); err != nil {
		t.Fatal(err)
	}
	if w := ConfigWarnings(cfg); len(w) != 1 || !strings.Contains(w[0], "keep a copy of that file off this machine") {
		t.Fatalf("defaults with the identity made: %q", w)
	}
	os.Chmod(cfg.IdentityFile, 0o644)
	if w := ConfigWarnings(cfg); len(w) != 2 || !strings.Contains(w[1], "readable by other users") {
		t.Fatalf("identity readable by others: %q", w)
	}
	cfg.Recipients = []string{r}
	if w := ConfigWarnings(cfg); len(w) != 0 {
		t.Fatalf("with a recipient: %q", w)
	}
	cfg.Encryption, cfg.Enabled = "off", false
	if w := ConfigWarnings(cfg); len(w) != 2 || !strings.Contains(w[0], "disabled") || !strings.Contains(w[1], "encryption is off") {
		t.Fatalf("off and disabled: %q", w)
	}
}

func TestCreateRefusesBadRecipientAndLeavesNothing(t *testing.T) {
	env := openTestStore(t)
	ctx := context.Background()
	dir := env.root.BackupsDir()
	if _, err := Create(ctx, env.store, Options{Dir: dir, Encryption: Encryption{Recipients: []string{"age1nope"}}}); err == nil {
		t.Fatal("bad recipient accepted")
	}
	if _, err := Create(ctx, env.store, Options{Dir: dir, Encryption: Encryption{Recipients: []string{"age1x"}, Passphrase: mustPassphrase(t, "p")}}); err == nil {
		t.Fatal("passphrase with recipients accepted")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Create(cctx, env.store, Options{Dir: dir}); err == nil {
		t.Fatal("cancelled backup succeeded")
	}
	populate(t, env.store, 200)
	// Cancelling mid-dump used to make mongodump's parallel workers panic
	// (see dumpParallel); a few rounds would catch that again.
	for range 5 {
		cctx, cancel = context.WithCancel(ctx)
		_, err := Create(cctx, env.store, Options{Dir: dir, Progress: func(p Progress) {
			if p.CollectionsDone > 0 {
				cancel()
			}
		}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled mid-dump: %v", err)
		}
	}
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		t.Errorf("left behind: %s", de.Name())
	}
}

func TestCreateSkipsStagingAndNamesUniquely(t *testing.T) {
	env := openTestStore(t)
	ctx := context.Background()
	// A restore in progress elsewhere: its collections are not memory.
	must(t, env.store.Database().CreateCollection(ctx, stagePrefix+"abcd_ConversationHistory"))
	clk := &clock{t: time.Date(2025, 6, 1, 3, 0, 0, 0, time.UTC)}
	a, err := Create(ctx, env.store, Options{Dir: env.root.BackupsDir(), Now: clk.now})
	must(t, err)
	b, err := Create(ctx, env.store, Options{Dir: env.root.BackupsDir(), Now: clk.now})
	must(t, err)
	if a.File != "backup_2025-06-01T03-00-00Z.archive.gz" || b.File != "backup_2025-06-01T03-00-00Z-1.archive.gz" {
		t.Fatalf("names %s %s", a.File, b.File)
	}
	if len(a.Manifest.Collections) != 5 {
		t.Fatalf("collections %v", a.Manifest.Collections)
	}
	st, err := ReadStatus(ctx, env.store)
	if err != nil || st.LastBackup == nil || st.LastBackup.File != b.File || st.LastBackup.Documents != b.Documents() {
		t.Fatalf("status %+v %v", st, err)
	}
}

func TestListAndCheck(t *testing.T) {
	env := openTestStore(t)
	ctx := context.Background()
	dir := env.root.BackupsDir()
	clk := &clock{t: time.Date(2025, 6, 1, 3, 0, 0, 0, time.UTC)}
	good, err := Create(ctx, env.store, Options{Dir: dir, Now: clk.now, Kind: KindDaily})
	must(t, err)
	clk.add(time.Hour)
	bad, err := Create(ctx, env.store, Options{Dir: dir, Now: clk.now, Encryption: Encryption{Passphrase: mustPassphrase(t, "p"), ScryptWorkFactor: testWorkFactor}})
	must(t, err)
	data, _ := os.ReadFile(bad.Path)
	data[len(data)-1] ^= 1
	must(t, os.WriteFile(bad.Path, data, 0o600))
	old := filepath.Join(dir, "old.archive.gz")
	must(t, os.WriteFile(old, []byte("x"), 0o600))
	must(t, os.Chtimes(old, clk.t.Add(-48*time.Hour), clk.t.Add(-48*time.Hour)))
	entries, err := List(dir)
	must(t, err)
	if len(entries) != 3 || entries[0].File != bad.File || entries[1].File != good.File || entries[2].File != "old.archive.gz" {
		t.Fatalf("entries %v", names(entries))
	}
	if err := entries[0].Check(); !errors.Is(err, ErrDamaged) || !entries[0].Encrypted || entries[0].Encryption() != EncryptionPassphrase {
		t.Fatalf("damaged: %v", err)
	}
	if err := entries[1].Check(); err != nil || entries[1].Kind() != KindDaily {
		t.Fatalf("good: %v", err)
	}
	if err := entries[2].Check(); !errors.Is(err, ErrNoManifest) || entries[2].Kind() != "" {
		t.Fatalf("no manifest: %v", err)
	}
	if mode, err := EncryptionOf(bad.Path); err != nil || mode != EncryptionPassphrase {
		t.Fatalf("EncryptionOf: %v %v", mode, err)
	}
}

func TestToolsURI(t *testing.T) {
	same, cleanup, err := toolsURI("mongodb://%2Ftmp%2Fx%2Fmongo.sock/")
	if err != nil || same != "mongodb://%2Ftmp%2Fx%2Fmongo.sock/" {
		t.Fatalf("%s %v", same, err)
	}
	cleanup()
	tcp, _, _ := toolsURI("mongodb://u:p@127.0.0.1:27017/?authSource=admin")
	if tcp != "mongodb://u:p@127.0.0.1:27017/?authSource=admin" {
		t.Fatal(tcp)
	}

	// A socket under a path with capitals gets a lowercase alias that
	// reaches the same socket.
	env := openTestStore(t)
	uri := env.store.URI()
	if strings.ToLower(uri) == uri {
		t.Skip("the test's socket path has no capitals")
	}
	alias, cleanup, err := toolsURI("mongodb://user:pw@" + strings.TrimPrefix(uri, "mongodb://"))
	if err != nil {
		t.Fatal(err)
	}
	dir := aliasDir(t, alias)
	if !strings.HasPrefix(alias, "mongodb://user:pw@%2F") || strings.ToLower(dir) != dir || !strings.HasSuffix(alias, "/") {
		t.Fatalf("alias %s", alias)
	}
	if _, err := os.Stat(filepath.Join(dir, "db.sock")); err != nil {
		t.Fatalf("alias does not reach the socket: %v", err)
	}
	cleanup()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("alias directory left: %v", err)
	}
	_ = bson.D{}
	_ = mongostore.Metadata
}

func TestAsksForPassword(t *testing.T) {
	for uri, want := range map[string]bool{
		"mongodb://localhost:27017/claude_memory":                   false,
		"mongodb://sam:pw@localhost:27017/":                         false,
		"mongodb://sam@localhost:27017/":                            true,
		"mongodb://sam@h1,h2/?replicaSet=rs":                        true,
		"mongodb://CN=sam@localhost/?authMechanism=MONGODB-X509":    false,
		"mongodb+srv://sam@cluster.example.net/db?retryWrites=true": true,
		"mongodb://localhost/db?appName=a@b":                        false,
		"mongodb://%2Ftmp%2Fmongo.sock/":                            false,
	} {
		if got := asksForPassword(uri); got != want {
			t.Errorf("%s: %v", uri, got)
		}
	}
}

func aliasDir(t *testing.T, uri string) string {
	host := strings.TrimPrefix(uri, "mongodb://user:pw@")
	host = host[:strings.IndexAny(host, "/?")]
	p := strings.ReplaceAll(host, "%2F", "/")
	return filepath.Dir(p)
}

func TestCountProxy(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 30)
	p, uri, err := startCountProxy(env.store.URI())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(ctx)
	coll := c.Database(env.store.Database().Name()).Collection(mongostore.ConversationHistory)
	// A count without a query is answered by the proxy...
	if n, err := coll.EstimatedDocumentCount(ctx); err != nil || n != 0 {
		t.Fatalf("estimated count through the proxy: %d %v", n, err)
	}
	// ...everything else reaches the engine unchanged.
	if n, err := coll.CountDocuments(ctx, bson.D{{Key: "scope", Value: "Global"}}); err != nil || n != 8 {
		t.Fatalf("count with a filter: %d %v", n, err)
	}
	var res struct {
		N int64 `bson:"n"`
	}
	cmd := bson.D{{Key: "count", Value: coll.Name()}, {Key: "query", Value: bson.D{{Key: "scope", Value: "Global"}}}}
	if err := coll.Database().RunCommand(ctx, cmd).Decode(&res); err != nil || res.N != 8 {
		t.Fatalf("count with a query: %d %v", res.N, err)
	}
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(7))
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(ctx, &docs); err != nil || len(docs) != 30 {
		t.Fatalf("find: %d %v", len(docs), err)
	}
	if strings.ToLower(aliasDirOf(uri)) != aliasDirOf(uri) {
		t.Fatalf("proxy socket %s has capitals", uri)
	}
	p.Close()
	if _, err := os.Stat(aliasDirOf(uri)); !os.IsNotExist(err) {
		t.Fatalf("proxy directory left behind: %v", err)
	}
}

func aliasDirOf(uri string) string {
	host := strings.TrimPrefix(uri, "mongodb://")
	host = host[:strings.IndexAny(host, "/?")]
	return filepath.Dir(strings.ReplaceAll(host, "%2F", "/"))
}
