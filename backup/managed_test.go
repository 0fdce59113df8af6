package backup

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/mongostore"
)

// TestRoundTripManagedEngine backs up and restores through the managed
// engine, whose connection string carries a generated password: mongodump
// must authenticate with it, and no error or manifest may show it. The
// engine is the project's test stand-in for mongod (the embedded engine
// behind mongod's command line and SCRAM authentication).
func TestRoundTripManagedEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the stand-in mongod")
	}
	bin := filepath.Join(t.TempDir(), "mongod")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/infmem/infmem/internal/mongod/internal/fakemongod").CombinedOutput()
	if err != nil {
		t.Fatalf("cannot build the stand-in mongod: %v\n%s", err, out)
	}
	root, err := dataroot.Prepare(filepath.Join(t.TempDir(), "root"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeManaged, MongodPath: bin, Root: root, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	if s.URI() == s.RedactedURI() {
		t.Fatal("the managed engine's URI carries no password; this test needs one")
	}
	password := passwordIn(s.URI(), s.RedactedURI())
	populate(t, s, 100)
	before := takeSnapshot(t, s)
	res, err := Create(ctx, s, Options{Dir: root.BackupsDir()})
	if err != nil {
		t.Fatal(err)
	}
	wipe(t, s)
	if _, err := Restore(ctx, s, res.Path, RestoreOptions{RunDir: root.RunDir()}); err != nil {
		t.Fatal(err)
	}
	if d := before.diff(takeSnapshot(t, s)); d != "" {
		t.Fatal(d)
	}
	manifest, _ := os.ReadFile(res.ManifestPath)
	if strings.Contains(string(manifest), password) {
		t.Fatal("the manifest holds the database password")
	}
}
