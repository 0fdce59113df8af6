package daemon

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/importer"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
)

// The import job runs on the runtime's open memory, reports progress as
// backup.Progress, and imports each item once.
func TestImportJob(t *testing.T) {
	cfg := config.Defaults()
	cfg.Embedding.Model = "hash"
	cfg.Scopes.Default = "Chats"
	rt := NewRuntime(Options{Config: cfg, Root: testenv.Root(t), Version: "test", Logger: testenv.Logger(t), OneShot: true})
	rt.Start()
	defer rt.Close(context.Background())
	ctx := testenv.Context(t)
	if err := rt.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	path, err := filepath.Abs("../internal/importer/testdata/chatgpt/conversations.json")
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ImportJobArgs) (*importer.Report, []backup.Progress, error) {
		var mu sync.Mutex
		var progress []backup.Progress
		pctx := control.WithProgress(ctx, func(v any) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, v.(backup.Progress))
		})
		raw, _ := json.Marshal(args)
		res, err := rt.RunJob(pctx, JobImport, raw)
		if err != nil {
			return nil, progress, err
		}
		return res.(*importer.Report), progress, nil
	}

	dry, _, err := run(ImportJobArgs{Path: path, DryRun: true})
	if err != nil || dry.Added != 7 || !dry.DryRun || dry.Format != importer.FormatChatGPT || len(dry.Scopes) != 1 || dry.Scopes[0].Scope != "Chats" || !dry.Scopes[0].Created {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	rep, progress, err := run(ImportJobArgs{Path: path})
	if err != nil || rep.Added != 7 || rep.Skipped != 4 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	if len(progress) == 0 || progress[0].Op != "import" || lastProgress(progress).Docs != 7 || lastProgress(progress).TotalDocs != 7 || !lastProgress(progress).Done {
		t.Fatalf("progress: %+v", progress)
	}
	err = rt.Do(ctx, func(st *Stack) error {
		res, err := st.Memory.List(ctx, memory.ListRequest{Scope: "Chats", Source: "conversation", Sort: "oldest"})
		if err != nil {
			return err
		}
		if res.Total != 7 || res.Memories[0].Speaker != "user" || res.Memories[0].ConversationID != "6611a2b0-1c2d-4e5f-8a9b-0c1d2e3f4a5b" {
			t.Errorf("stored: %+v", res)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := run(ImportJobArgs{Path: path, Format: "chatgpt"})
	if err != nil || again.Added != 0 || again.AlreadyImported != 7 {
		t.Fatalf("again: %+v %v", again, err)
	}

	for _, c := range []struct {
		args ImportJobArgs
		want string
	}{
		{ImportJobArgs{Path: "conversations.json"}, "not absolute"},
		{ImportJobArgs{Path: path, Format: "pdf"}, `format "pdf" is not one of`},
		{ImportJobArgs{Path: path, Format: "claude-ai"}, `"chat_messages"`},
		{ImportJobArgs{Path: filepath.Join(t.TempDir(), "missing.json")}, "no such file"},
	} {
		if _, _, err := run(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.args, err, c.want)
		}
	}
}

func lastProgress(p []backup.Progress) backup.Progress { return p[len(p)-1] }
