package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/mcptools"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
)

// testClock is a clock tests move by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// limitedToolServer serves backup_memory and export_memory on hooks
// through the limits, as the daemon does, without a memory behind them.
func limitedToolServer(hooks toolHooks, limits toolLimits) *server.MCPServer {
	h := limitTools(hooks, limits)
	return mcptools.NewServer(mcptools.Deps{
		Memory: func(context.Context) (*memory.Engine, func(), error) { return nil, func() {}, nil },
		Backup: func(ctx context.Context) (mcptools.BackupResult, error) { return h.Backup(ctx, nil) },
		Export: func(ctx context.Context, req mcptools.ExportRequest) (mcptools.ExportResult, error) {
			return h.Export(ctx, nil, req)
		},
	}, "test")
}

// callTool calls a tool and returns whether its result is an error, and
// its text. A JSON-RPC error (how a tool reports that infmem failed) fails
// the test: a refusal must reach the model as a tool result.
func callTool(t *testing.T, srv *server.MCPServer, name string) (isError bool, text string) {
	t.Helper()
	isError, text, rpcErr := callToolRaw(srv, name)
	if rpcErr != "" {
		t.Fatalf("%s: no tool result: %s", name, rpcErr)
	}
	return isError, text
}

// callToolRaw is callTool that returns a JSON-RPC error's message.
func callToolRaw(srv *server.MCPServer, name string) (isError bool, text, rpcErr string) {
	req := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, name)
	b, err := json.Marshal(srv.HandleMessage(context.Background(), json.RawMessage(req)))
	if err != nil {
		return false, "", err.Error()
	}
	var resp struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &resp); err != nil {
		return false, "", err.Error()
	}
	if resp.Result == nil || len(resp.Result.Content) == 0 {
		return false, "", string(b)
	}
	return resp.Result.IsError, resp.Result.Content[0].Text, ""
}

func okHooks(backups, exports *atomic.Int32) toolHooks {
	return toolHooks{
		Backup: func(context.Context, *Stack) (mcptools.BackupResult, error) {
			backups.Add(1)
			return mcptools.BackupResult{File: "b"}, nil
		},
		Export: func(context.Context, *Stack, mcptools.ExportRequest) (mcptools.ExportResult, error) {
			exports.Add(1)
			return mcptools.ExportResult{Dir: "e"}, nil
		},
	}
}

// A backup or export the tools ask for is refused within a minute of the
// last one, saying when to try again, and allowed after it.
func TestToolBackupsAndExportsAreRateLimited(t *testing.T) {
	clock := &testClock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	var backups, exports atomic.Int32
	srv := limitedToolServer(okHooks(&backups, &exports), newToolLimits(clock.now))

	if isErr, text := callTool(t, srv, "backup_memory"); isErr || backups.Load() != 1 {
		t.Fatalf("first backup: %v %s", isErr, text)
	}
	clock.add(20 * time.Second)
	isErr, text := callTool(t, srv, "backup_memory")
	if !isErr || backups.Load() != 1 || !strings.Contains(text, "at most one backup every 60 s") ||
		!strings.Contains(text, "finished 20 s ago") || !strings.Contains(text, "try again in 40 s") || strings.Contains(text, "invalid input") {
		t.Fatalf("second backup 20 s later: %v %q (backups %d)", isErr, text, backups.Load())
	}
	t.Logf("the model reads: %s", text)
	// Exports have their own limit.
	if isErr, text := callTool(t, srv, "export_memory"); isErr || exports.Load() != 1 {
		t.Fatalf("first export: %v %s", isErr, text)
	}
	clock.add(39*time.Second + 500*time.Millisecond)
	if isErr, text := callTool(t, srv, "backup_memory"); !isErr || !strings.Contains(text, "try again in 1 s") {
		t.Fatalf("backup 59.5 s later: %v %q", isErr, text)
	}
	if isErr, text := callTool(t, srv, "export_memory"); !isErr || exports.Load() != 1 || !strings.Contains(text, "at most one export every 60 s") {
		t.Fatalf("export 39.5 s later: %v %q", isErr, text)
	}
	clock.add(500 * time.Millisecond)
	if isErr, text := callTool(t, srv, "backup_memory"); isErr || backups.Load() != 2 {
		t.Fatalf("backup a minute later: %v %s", isErr, text)
	}
}

// One backup runs at a time; one that failed does not count, so it can be
// tried again at once; a refusal for lack of disk space reaches the model
// as a tool result with the numbers.
func TestToolBackupLimitRunningAndFailures(t *testing.T) {
	clock := &testClock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	started, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	var failMu sync.Mutex
	var failWith error
	fail := func(err error) { failMu.Lock(); failWith = err; failMu.Unlock() }
	hooks := toolHooks{Backup: func(context.Context, *Stack) (mcptools.BackupResult, error) {
		if calls.Add(1) == 1 {
			close(started)
			<-release
		}
		failMu.Lock()
		err := failWith
		failMu.Unlock()
		if err != nil {
			return mcptools.BackupResult{}, err
		}
		return mcptools.BackupResult{File: "b"}, nil
	}}
	srv := limitedToolServer(hooks, newToolLimits(clock.now))
	fail(errors.New("backup failed: cannot write backup file: input/output error"))

	done := make(chan string)
	go func() {
		isErr, text, rpcErr := callToolRaw(srv, "backup_memory")
		if !isErr {
			text = "not an isError result: " + text + rpcErr
		}
		done <- text
	}()
	<-started
	if isErr, text := callTool(t, srv, "backup_memory"); !isErr || !strings.Contains(text, "still running") || calls.Load() != 1 {
		t.Fatalf("backup while one runs: %v %q", isErr, text)
	}
	close(release)
	if text := <-done; !strings.Contains(text, "backup_memory failed:") || !strings.Contains(text, "input/output error") {
		t.Fatalf("the failed backup: %s", text)
	}

	low := &backup.LowSpaceError{Op: "backup", Dir: "/data/backups", Free: 120 << 20, MinFree: 256 << 20}
	fail(fmt.Errorf("wrapped: %w", low))
	isErr, text := callTool(t, srv, "backup_memory")
	if !isErr || calls.Load() != 2 || !strings.Contains(text, low.Error()) {
		t.Fatalf("backup after a failed one, on a full disk: %v %q", isErr, text)
	}
	t.Logf("the model reads: %s", text)
	fail(nil)
	if isErr, text := callTool(t, srv, "backup_memory"); isErr || calls.Load() != 3 {
		t.Fatalf("backup once there is room: %v %q", isErr, text)
	}
}

// The jobs terminal commands run in the daemon keep the free-space floor,
// say so plainly, and leave nothing behind; the refused manual backup is
// recorded for status and doctor.
func TestBackupAndExportJobsKeepFreeSpaceFloor(t *testing.T) {
	r := testenv.Root(t)
	root := r.Dir
	func(store *mongostore.Store) {
		addMemories(t, store, "Global", 3)
		ctx := context.Background()
		dir, exportDir := filepath.Join(root, "backups"), filepath.Join(root, "export")
		svc := &backupService{cfg: config.Defaults().Backup, dir: dir, exportDir: exportDir, log: slog.New(slog.DiscardHandler),
			space: backup.Space{MinFree: 1 << 62}}
		st := &Stack{Store: store}
		raw, _ := json.Marshal(BackupJobArgs{Encryption: EncNone})

		_, err := svc.backupJob(ctx, st, raw)
		if !errors.Is(err, backup.ErrLowSpace) || !strings.HasPrefix(err.Error(), "backup refused: only ") ||
			!strings.Contains(err.Error(), dir) || !strings.HasSuffix(err.Error(), "free space or move the data root") {
			t.Fatalf("backup job: %v", err)
		}
		_, err = svc.exportJob(ctx, st, nil)
		if !errors.Is(err, backup.ErrLowSpace) || !strings.HasPrefix(err.Error(), "export refused: only ") {
			t.Fatalf("export job: %v", err)
		}
		for _, d := range []string{dir, exportDir} {
			des, _ := os.ReadDir(d)
			if len(des) != 0 {
				t.Fatalf("%s holds %v", d, des)
			}
		}
		b, err := svc.state(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		if m := b.Runs["manual"]; m.OK || !strings.HasPrefix(m.Error, "backup refused: only ") {
			t.Fatalf("refused manual backup not recorded: %+v", m)
		}
	}(testenv.StoreAt(t, r))
}
