package testenv

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestZipBombInflates(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.zip")
	if err := WriteZipBomb(p, 64); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	zr, err := zip.OpenReader(p)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	rc, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, rc)
	t.Logf("zip %d bytes, inflated %d, err %v", fi.Size(), n, err)
	if err != nil || n < 64<<20 {
		t.Fatal("bad bomb")
	}
}
