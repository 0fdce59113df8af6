package mongostore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/mongod"
)

func TestManagedMissingBinary(t *testing.T) {
	_, err := Open(ctxT(t), Options{Mode: ModeManaged, MongodPath: filepath.Join(t.TempDir(), "no-mongod"), Root: testRoot(t)})
	if !errors.Is(err, mongod.ErrNotFound) || !strings.Contains(err.Error(), "mongo.mode=embedded") {
		t.Fatalf("err = %v", err)
	}
}

// TestManagedCrashingOnStart uses the stand-in mongod told to crash at every
// start: Open gives up after the restart limit with the log tail.
func TestManagedCrashingOnStart(t *testing.T) {
	bin := fakeMongod(t)
	t.Setenv("FAKEMONGOD_CRASH_ON_START", "1")
	start := time.Now()
	_, err := Open(ctxT(t), Options{Mode: ModeManaged, MongodPath: bin, Root: testRoot(t)})
	if err == nil {
		t.Fatal("opened a mongod that crashes on start")
	}
	if !strings.Contains(err.Error(), "cannot start mongod") || !strings.Contains(err.Error(), "simulated crash on start") {
		t.Fatalf("error lacks the cause or the log tail: %v", err)
	}
	t.Logf("gave up after %v: %v", time.Since(start), err)
}

// TestManagedSurvivesRestart stops and restarts the supervised mongod on one
// data root; data and credential persist.
func TestManagedSurvivesRestart(t *testing.T) {
	bin := fakeMongod(t)
	root := testRoot(t)
	ctx := ctxT(t)
	s, err := Open(ctx, Options{Mode: ModeManaged, MongodPath: bin, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.RedactedURI(), "@") && !strings.Contains(s.RedactedURI(), "REDACTED") {
		t.Fatalf("redacted URI shows a password: %s", s.RedactedURI())
	}
	m := newMemory("kept by mongod", "Global")
	if err := s.Memories.Insert(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(root.MongoDataDir(), "infmem-credential.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("credential file: %v %v", fi, err)
	}
	s2, err := Open(ctx, Options{Mode: ModeManaged, MongodPath: bin, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close(context.Background())
	if got, err := s2.Memories.Get(ctx, m.ID); err != nil || got.Text != m.Text {
		t.Fatalf("after restart: %+v %v", got, err)
	}
}

func TestChooseMode(t *testing.T) {
	emptyPath := t.TempDir()
	t.Setenv("PATH", emptyPath)
	cases := []struct {
		opts       Options
		want       string
		wantReason string
	}{
		{Options{Mode: "auto"}, ModeEmbedded, "no mongod is configured or on PATH"},
		{Options{Mode: ""}, ModeEmbedded, "no mongod"},
		{Options{Mode: "auto", MongodPath: "/opt/mongod"}, ModeManaged, "mongo.mongod_path is /opt/mongod"},
		{Options{Mode: "embedded", MongodPath: "/opt/mongod"}, ModeEmbedded, "mongo.mode is embedded"},
		{Options{Mode: "external", URI: "mongodb://x"}, ModeExternal, "mongo.mode is external"},
	}
	for _, c := range cases {
		got, reason, err := chooseMode(c.opts)
		if err != nil || got != c.want || !strings.Contains(reason, c.wantReason) {
			t.Errorf("%+v: %s (%s) %v", c.opts, got, reason, err)
		}
	}
	// A mongod on PATH makes auto choose managed.
	os.WriteFile(filepath.Join(emptyPath, "mongod"), []byte("#!/bin/sh\n"), 0o755)
	if got, reason, _ := chooseMode(Options{Mode: "auto"}); got != ModeManaged || !strings.Contains(reason, "found at") {
		t.Errorf("mongod on PATH: %s (%s)", got, reason)
	}
	if _, _, err := chooseMode(Options{Mode: "cloud"}); err == nil {
		t.Error("unknown mode accepted")
	}
}
