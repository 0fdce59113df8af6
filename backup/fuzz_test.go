package backup

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadArchive: whatever bytes a backup holds after decryption and
// decompression, the archive reader returns an error or a summary; it
// never panics, hangs or allocates without bound.
func FuzzReadArchive(f *testing.F) {
	env := openTestStore(f)
	populate(f, env.store, 3)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if err := dumpInto(context.Background(), env.store, zw, newReporter(nil, "backup")); err != nil {
		f.Fatal(err)
	}
	zw.Close()
	zr, err := gzip.NewReader(&gz)
	if err != nil {
		f.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(plain)
	f.Add(plain[:len(plain)/2])
	f.Add(plain[:64])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		sum, err := readArchive(context.Background(), bytes.NewReader(data), nil)
		if err == nil && sum == nil {
			t.Fatal("no summary and no error")
		}
	})
}

// FuzzReadManifest: a damaged manifest is reported as damaged, never a
// panic.
func FuzzReadManifest(f *testing.F) {
	f.Add([]byte(`{"format":"infmem-backup-manifest","format_version":1,"file":"backup_2026-01-01T00-00-00Z.archive.gz","collections":{"ConversationHistory":3}}`))
	f.Add([]byte(`{"format":"infmem-backup-manifest","file":7}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		archive := filepath.Join(dir, "backup_2026-01-01T00-00-00Z.archive.gz")
		if err := os.WriteFile(manifestPath(archive), data, 0o600); err != nil {
			t.Fatal(err)
		}
		m, err := readManifest(archive)
		if err != nil && m != nil {
			t.Fatal("a manifest and an error")
		}
	})
}
