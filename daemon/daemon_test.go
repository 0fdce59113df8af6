package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/maintenance"
	"github.com/infmem/infmem/mongostore"
)

var _ backup.Pauser = (*Runtime)(nil)

func TestMain(m *testing.M) {
	if path := os.Getenv("INFMEM_TEST_FOREIGN_DIAL"); path != "" {
		foreignDial(path)
		return
	}
	if path := os.Getenv("INFMEM_TEST_FOREIGN_MONGO"); path != "" {
		foreignMongo(path)
		return
	}
	// mcp-go's client transport logs a closed connection through the
	// default logger; the tests close many on purpose.
	slog.SetDefault(slog.New(slog.DiscardHandler))
	code := m.Run()
	if n := invalidTransitions.Load(); n > 0 {
		fmt.Fprintf(os.Stderr, "%d memory state transitions the table does not allow\n", n)
		code = 1
	}
	os.Exit(code)
}

// testRoot makes a data root short enough for its sockets to live in run/.
func testRoot(t *testing.T) dataroot.Root {
	t.Helper()
	dir, err := os.MkdirTemp("", "infd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	root, err := dataroot.Prepare(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func testOptions(t *testing.T, root dataroot.Root) Options {
	cfg := config.Defaults()
	cfg.Mongo.Mode = "embedded"
	return Options{Config: cfg, Root: root, Version: "test", CallWait: 2 * time.Second, ShutdownTimeout: 10 * time.Second}
}

// startDaemon opens and starts a daemon; it is stopped when the test ends.
func startDaemon(t *testing.T, opts Options) *Daemon {
	t.Helper()
	d, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Stop(nil); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return d
}

// connect opens an MCP session on the daemon's socket, as the bridge does.
func connect(t *testing.T, d *Daemon) *client.Client {
	t.Helper()
	conn, err := net.Dial("unix", d.Endpoints().MCP)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(transport.NewIO(conn, conn, io.NopCloser(strings.NewReader(""))))
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "daemon-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

func call(c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return c.CallTool(ctx, req)
}

func resultText(r *mcp.CallToolResult) string {
	if r == nil || len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].(mcp.TextContent).Text
}

// callOK calls a tool that must succeed, retrying while memory loads.
func callOK(t *testing.T, c *client.Client, name string, args map[string]any) map[string]any {
	t.Helper()
	for {
		res, err := call(c, name, args)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return nil
		}
		if res.IsError {
			if strings.Contains(resultText(res), "still loading") {
				continue
			}
			t.Errorf("%s: %s", name, resultText(res))
			return nil
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(resultText(res)), &out); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		return out
	}
}

// listAll pages through list_memories and returns every memory id.
func listAll(t *testing.T, c *client.Client) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	offset := 0
	for {
		out := callOK(t, c, "list_memories", map[string]any{"scope": "ALL", "limit": 100, "offset": offset})
		if out == nil {
			t.FailNow()
		}
		for _, m := range out["memories"].([]any) {
			seen[m.(map[string]any)["memory_id"].(string)] = true
		}
		next, ok := out["next_offset"].(float64)
		if !ok || next == 0 {
			return seen
		}
		offset = int(next)
	}
}

// relevantResults are a search's results that clear the relevance bar
// (weak ones are returned too, marked).
func relevantResults(out map[string]any) []any {
	var keep []any
	for _, r := range out["results"].([]any) {
		if r.(map[string]any)["weak"] != true {
			keep = append(keep, r)
		}
	}
	return keep
}

func dialControl(t *testing.T, d *Daemon) *control.Client {
	t.Helper()
	c, err := control.Dial(context.Background(), d.Endpoints().Control)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestSessionsShareMemoryButNotScope(t *testing.T) {
	d := startDaemon(t, testOptions(t, testRoot(t)))
	a, b := connect(t, d), connect(t, d)
	callOK(t, a, "set_active_scope", map[string]any{"scope": "Work", "create": true})
	callOK(t, a, "store_memory", map[string]any{"content": "The quarterly report is due Friday"})
	st := callOK(t, b, "store_memory", map[string]any{"content": "My sister lives in Lisbon"})
	if st["scope"] != "Global" {
		t.Fatalf("session b took session a's scope: %v", st)
	}
	got := callOK(t, b, "retrieve_memory", map[string]any{"query": "quarterly report", "filter": map[string]any{"scope": "Work"}})
	if res := relevantResults(got); len(res) != 1 {
		t.Fatalf("b does not see a's memory: %v", got)
	}
	ctl := dialControl(t, d)
	s, err := ctl.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.State != control.StateReady || s.Sessions != 2 || s.PID != os.Getpid() || s.Store == nil || s.Store.Engine != "embedded" ||
		s.Index == nil || !s.Index.Ready || s.Memories == nil || s.Memories.Total != 2 || s.Memories.Scopes["Work"] != 1 {
		t.Fatalf("status: %+v", s)
	}
}

// Clients store and retrieve at once; every acknowledged store is in the
// index and, after a restart, in the database.
func TestConcurrentSessionsLoseNoWrite(t *testing.T) {
	root := testRoot(t)
	opts := testOptions(t, root)
	d, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	d.Start(nil)
	const clients, each = 4, 40
	var mu sync.Mutex
	acked := map[string]string{}
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		c := connect(t, d)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				text := fmt.Sprintf("client %d note %d about tangerine %d", i, j, i*1000+j)
				out := callOK(t, c, "store_memory", map[string]any{"content": text})
				if out == nil {
					return
				}
				mu.Lock()
				acked[out["memory_id"].(string)] = text
				mu.Unlock()
				if j%5 == 0 {
					callOK(t, c, "retrieve_memory", map[string]any{"query": "tangerine", "top_k": 3})
				}
			}
		}()
	}
	wg.Wait()
	if len(acked) != clients*each {
		t.Fatalf("%d acknowledged stores, want %d", len(acked), clients*each)
	}
	check := func(c *client.Client) {
		t.Helper()
		seen := listAll(t, c)
		for id, text := range acked {
			if !seen[id] {
				t.Fatalf("acknowledged store %s (%q) missing", id, text)
			}
		}
	}
	check(connect(t, d))
	if err := d.Stop(nil); err != nil {
		t.Fatal(err)
	}
	check(connect(t, startDaemon(t, opts)))
}

func TestOneDaemonPerRoot(t *testing.T) {
	root := testRoot(t)
	startDaemon(t, testOptions(t, root))
	_, err := Open(testOptions(t, root))
	var re *RunningError
	if !errors.As(err, &re) || re.PID != os.Getpid() || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second daemon: %v", err)
	}
	ep, _ := control.EndpointsFor(root)
	if _, err := Lock(ep); !errors.As(err, &re) {
		t.Fatalf("lock beside a daemon: %v", err)
	}
}

// A crashed daemon leaves daemon.json and its sockets behind; the next one
// replaces them.
func TestStaleLeftoversAreReplaced(t *testing.T) {
	root := testRoot(t)
	ep, _ := control.EndpointsFor(root)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	control.WriteInfo(ep.Info, control.Info{PID: dead.Process.Pid, Socket: ep.MCP, ControlSocket: ep.Control})
	for _, p := range []string{ep.MCP, ep.Control} {
		ln, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		ln.(*net.UnixListener).SetUnlinkOnClose(false) // as a kill -9 leaves it
		ln.Close()
	}
	if p := control.ProbeDaemon(context.Background(), ep); p.Presence != control.Stale {
		t.Fatalf("before: %+v", p)
	}
	d := startDaemon(t, testOptions(t, root))
	info, err := control.ReadInfo(ep.Info)
	if err != nil || info.PID != os.Getpid() || info.Socket != ep.MCP {
		t.Fatalf("daemon.json: %+v %v", info, err)
	}
	for _, p := range []string{ep.MCP, ep.Control} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
			t.Fatalf("%s: %v %v", p, fi.Mode(), err)
		}
	}
	if p := control.ProbeDaemon(context.Background(), ep); p.Presence != control.Running || p.Pong.PID != os.Getpid() {
		t.Fatalf("after: %+v", p)
	}
	callOK(t, connect(t, d), "get_memory_stats", nil)
}

// slowTool is a tool that takes a while, to catch a shutdown in the act.
func slowTool(started chan<- struct{}) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("slow_test_tool"),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			started <- struct{}{}
			time.Sleep(700 * time.Millisecond)
			return mcp.NewToolResultText("finished"), nil
		},
	}
}

func TestGracefulStopFinishesRunningCalls(t *testing.T) {
	root := testRoot(t)
	d, err := Open(testOptions(t, root))
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{}, 1)
	d.Runtime().Server().AddTools(slowTool(started))
	d.Start(nil)
	c := connect(t, d)
	callOK(t, c, "get_memory_stats", nil)
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := call(c, "slow_test_tool", nil)
		if err != nil {
			t.Errorf("slow call: %v", err)
		}
		done <- res
	}()
	<-started
	stopped := make(chan error, 1)
	go func() { stopped <- d.Stop(nil) }()
	res := <-done
	if res == nil || res.IsError || resultText(res) != "finished" {
		t.Fatalf("running call was cut short: %+v", res)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	ep := d.Endpoints()
	if _, err := os.Stat(ep.Info); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("daemon.json left: %v", err)
	}
	if _, err := net.Dial("unix", ep.MCP); err == nil {
		t.Fatal("socket still answers after stop")
	}
	// The lock is free again.
	d2 := startDaemon(t, testOptions(t, root))
	callOK(t, connect(t, d2), "get_memory_stats", nil)
}

// While paused, sessions still initialize and list tools; tool calls wait
// and then are told to try again; a resume brings everything back.
func TestPauseHoldsCallsAndResumeReopens(t *testing.T) {
	opts := testOptions(t, testRoot(t))
	opts.CallWait = 200 * time.Millisecond
	d := startDaemon(t, opts)
	c := connect(t, d)
	callOK(t, c, "store_memory", map[string]any{"content": "The boat is called Nimbus"})

	for _, release := range []bool{true, false} {
		ctl := dialControl(t, d)
		resume, err := ctl.Pause(context.Background(), release)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ctl.Pause(context.Background(), release); err == nil {
			t.Fatal("second pause on the same connection accepted")
		}
		if _, err := dialControl(t, d).Pause(context.Background(), release); err == nil || !strings.Contains(err.Error(), "already paused") {
			t.Fatalf("pause by another client: %v", err)
		}
		c2 := connect(t, d) // initialize works while paused
		if tools, err := c2.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil || len(tools.Tools) < 10 {
			t.Fatalf("tools/list while paused: %v", err)
		}
		res, err := call(c2, "retrieve_memory", map[string]any{"query": "boat"})
		if err != nil || !res.IsError || !strings.Contains(resultText(res), "retrieve_memory: memory is paused") {
			t.Fatalf("call while paused: %+v %v", res, err)
		}
		if s, _ := ctl.Status(context.Background()); s.State != control.StatePaused {
			t.Fatalf("state while paused: %+v", s)
		}
		if err := resume(true); err != nil {
			t.Fatal(err)
		}
		got := callOK(t, c2, "retrieve_memory", map[string]any{"query": "boat"})
		if res := relevantResults(got); len(res) != 1 {
			t.Fatalf("after resume (release %v): %v", release, got)
		}
	}
}

// A control client that dies while holding a pause does not leave the
// daemon paused.
func TestAbandonedPauseEnds(t *testing.T) {
	d := startDaemon(t, testOptions(t, testRoot(t)))
	ctl, err := control.Dial(context.Background(), d.Endpoints().Control)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.Pause(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	ctl.Close()
	c := connect(t, d)
	callOK(t, c, "store_memory", map[string]any{"content": "after the abandoned pause"})
}

func TestFailedDatabaseIsReportedAndRetried(t *testing.T) {
	opts := testOptions(t, testRoot(t))
	opts.Config.Mongo.Mode = "managed"
	opts.Config.Mongo.MongodPath = filepath.Join(t.TempDir(), "no-such-mongod")
	opts.CallWait = 300 * time.Millisecond
	d := startDaemon(t, opts)
	c := connect(t, d)
	res, err := call(c, "store_memory", map[string]any{"content": "x"})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "memory is unavailable") ||
		!strings.Contains(resultText(res), "memory_service.log") {
		t.Fatalf("call on a failed database: %+v %v", res, err)
	}
	s, err := dialControl(t, d).Status(context.Background())
	if err != nil || s.State != control.StateFailed || s.Error == "" {
		t.Fatalf("status: %+v %v", s, err)
	}
}

// TestJobsRunOnTheOpenMemory: the jobs terminal commands run in the
// daemon (export, maintenance) work on its open memory, an unknown one is
// refused with the list, and status carries the backup and maintenance
// sections, typed.
func TestJobsRunOnTheOpenMemory(t *testing.T) {
	root := testRoot(t)
	d := startDaemon(t, testOptions(t, root))
	callOK(t, connect(t, d), "store_memory", map[string]any{"content": "a fact", "metadata": map[string]any{"scope": "Home"}})
	ctl := dialControl(t, d)
	ctx := context.Background()
	var exp backup.ExportResult
	if err := ctl.Run(ctx, JobExport, ExportJobArgs{Scopes: []string{"Home"}, Format: "json"}, &exp); err != nil || exp.Memories != 1 || !strings.HasPrefix(exp.Dir, root.ExportDir()) {
		t.Fatalf("export: %+v %v", exp, err)
	}
	var rep maintenance.Report
	if err := ctl.Run(ctx, JobMaintain, MaintainJobArgs{Job: "compact", DryRun: true}, &rep); err != nil || rep.Job != "compact" || !rep.DryRun {
		t.Fatalf("maintain: %+v %v", rep, err)
	}
	if err := ctl.Run(ctx, "nope", nil, nil); err == nil || !strings.Contains(err.Error(), "[backup export import lessons maintain maintenance-log]") {
		t.Fatalf("unknown job: %v", err)
	}
	s, err := ctl.Status(ctx)
	if err != nil || s.Backups == nil || !s.Backups.Enabled || len(s.Backups.Scheduled) == 0 || s.Maintenance == nil || s.Maintenance.Schedule == "" {
		t.Fatalf("status sections: %+v %+v %v", s.Backups, s.Maintenance, err)
	}
}

func TestShutdownRequest(t *testing.T) {
	d, err := Open(testOptions(t, testRoot(t)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.Run(context.Background()) }()
	var ctl *control.Client
	for ctl == nil {
		ctl, _ = control.Dial(context.Background(), d.Endpoints().Control)
	}
	defer ctl.Close()
	if err := ctl.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("daemon did not stop on request")
	}
}

// configFile is a ConfigSource on a file, as `infmem daemon` builds one.
func configFile(t *testing.T, body string) (path string, src *ConfigSource) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, &ConfigSource{
		Path: path,
		Load: func() (config.Config, string, error) {
			cfg, err := config.ReadFile(path)
			return cfg, path, err
		},
		Stamp: func() string {
			fi, err := os.Stat(path)
			if err != nil {
				return err.Error()
			}
			return fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
		},
		Poll: -1,
	}
}

const testRecipient = "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"

// A running daemon notices its edited config file: it applies the live keys
// (backup recipients, log level) at once, tells its components, records
// the keys that need a restart, and keeps its configuration when the file
// turns invalid, saying why in status.
func TestConfigReload(t *testing.T) {
	path, src := configFile(t, `{"mongo": {"mode": "embedded"}}`)
	opts := testOptions(t, testRoot(t))
	opts.ConfigSource = src
	opts.LogLevel = new(slog.LevelVar)
	d := startDaemon(t, opts)
	ctl := dialControl(t, d)
	ctx := context.Background()
	st, err := ctl.Status(ctx)
	if err != nil || st.Config == nil || st.Config.Path != path || st.Config.Reloads != 0 || len(st.Config.RestartNeeded) != 0 {
		t.Fatalf("status before any change: %+v %v", st.Config, err)
	}

	// `infmem backup keygen` says to add the recipient; the user does, and
	// also changes the engine. Status reads the changed file at once.
	os.WriteFile(path, []byte(`{"mongo": {"mode": "external", "uri": "mongodb://u:hunter2@db.example:27017/x"},
		"backup": {"recipients": ["`+testRecipient+`"]}, "logging": {"level": "debug"}}`), 0o600)
	st, err = ctl.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cs := st.Config
	if cs.Reloads != 1 || cs.Error != "" || !slices.Contains(cs.Applied, "backup.recipients") || !slices.Contains(cs.Applied, "logging.level") ||
		!slices.Equal(cs.RestartNeeded, []string{"mongo.mode", "mongo.uri"}) {
		t.Fatalf("status after the edit: %+v", cs)
	}
	run := d.Runtime().Config()
	if !slices.Equal(run.Backup.Recipients, []string{testRecipient}) || run.Mongo.Mode != "embedded" || opts.LogLevel.Level() != slog.LevelDebug {
		t.Fatalf("running with %+v, log level %v", run, opts.LogLevel.Level())
	}
	// The services were told: backups and maintenance (with its scheduled
	// backups) now encrypt to the new recipient.
	svc := d.Runtime().svc
	if b := svc.backups.config(); !slices.Equal(b.Recipients, []string{testRecipient}) {
		t.Fatalf("the backup service runs with %+v", b)
	}
	if m := svc.maintenance.config(); !slices.Equal(m.Backup.Recipients, []string{testRecipient}) || m.Mongo.Mode != "embedded" {
		t.Fatalf("the maintenance service runs with %+v", m)
	}
	callOK(t, connect(t, d), "get_memory_stats", nil) // the memory is open
	if st, _ := ctl.Status(ctx); st.Backups == nil || slices.ContainsFunc(st.Backups.Warnings, func(w string) bool { return strings.Contains(w, "recipients") }) {
		t.Fatalf("status still judges the old backup config: %+v", st.Backups)
	}
	if strings.Contains(fmt.Sprint(st), "hunter2") {
		t.Fatal("status carries the database password")
	}

	// A typo: the daemon keeps what it runs with and says why.
	os.WriteFile(path, []byte(`{"backup": {"recipients": ["age1nope"]}}`), 0o600)
	cs2, err := ctl.Reload(ctx)
	if err != nil || !strings.Contains(cs2.Error, path) || !strings.Contains(cs2.Error, "backup.recipients[0]") || cs2.ErrorAt == nil {
		t.Fatalf("reload of an invalid file: %+v %v", cs2, err)
	}
	if run := d.Runtime().Config(); !slices.Equal(run.Backup.Recipients, []string{testRecipient}) {
		t.Fatalf("an invalid file changed the running config: %+v", run.Backup)
	}
	if st, _ := ctl.Status(ctx); st.Config.Error != cs2.Error {
		t.Fatalf("status forgot the refused config: %+v", st.Config)
	}

	// Fixed, and the daemon told with SIGHUP: the error clears, and going
	// back to the engine it runs with needs no restart any more.
	os.WriteFile(path, []byte(`{"mongo": {"mode": "embedded"}, "backup": {"recipients": []}}`), 0o600)
	self, _ := os.FindProcess(os.Getpid())
	if err := self.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	// The status is recorded once every service took the new config.
	for cs := d.ConfigStatus(); cs.Reloads < 2 || len(d.Runtime().Config().Backup.Recipients) != 0; cs = d.ConfigStatus() {
		if time.Now().After(deadline) {
			t.Fatal("SIGHUP did not reload the configuration")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if cs := d.ConfigStatus(); cs.Error != "" || len(cs.RestartNeeded) != 0 || cs.Reloads != 2 {
		t.Fatalf("after SIGHUP: %+v", cs)
	}
}

// TestTooManySessionsRefused: past MaxSessions connections, a new one gets
// an error line saying why and is closed; once one leaves, a new client is
// served again (issue 13: no unbounded sessions).
func TestTooManySessionsRefused(t *testing.T) {
	d := startDaemon(t, testOptions(t, testRoot(t)))
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range MaxSessions {
		c, err := net.Dial("unix", d.Endpoints().MCP)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// The daemon counts a connection once it accepted it; wait for all.
	deadline := time.Now().Add(10 * time.Second)
	for {
		d.mu.Lock()
		n := len(d.conns)
		d.mu.Unlock()
		if n == MaxSessions {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d connections accepted", n, MaxSessions)
		}
		time.Sleep(10 * time.Millisecond)
	}
	extra, err := net.Dial("unix", d.Endpoints().MCP)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	extra.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := io.ReadAll(extra)
	if !strings.Contains(string(line), "too many MCP sessions (64)") {
		t.Fatalf("connection %d: %q %v", MaxSessions+1, line, err)
	}
	conns[0].Close()
	conns = conns[1:]
	deadline = time.Now().Add(10 * time.Second)
	for {
		d.mu.Lock()
		n := len(d.conns)
		d.mu.Unlock()
		if n < MaxSessions {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed connection still counts")
		}
		time.Sleep(10 * time.Millisecond)
	}
	callOK(t, connect(t, d), "get_memory_stats", nil)
}

// TestResumeAfterRestoreReadsTheRestoredData: an in-process restore pauses
// the runtime, writes the database behind the engine's back and withdraws
// the index snapshot. The engine must close before those writes: closed
// after them, it snapshotted its old index and vouched for it again, and
// the new engine (or the next start) served the data from before the
// restore.
func TestResumeAfterRestoreReadsTheRestoredData(t *testing.T) {
	d := startDaemon(t, testOptions(t, testRoot(t)))
	c := connect(t, d)
	callOK(t, c, "store_memory", map[string]any{"content": "The boat is called Nimbus"})
	ctx := context.Background()
	resume, err := d.Runtime().Pause(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// What a restore does while the runtime is paused.
	d.rt.mu.Lock()
	store := d.rt.stack.Store
	d.rt.mu.Unlock()
	now := time.Now().UTC()
	m := &mongostore.Memory{ID: bson.NewObjectID(), Text: "The kayak is called Drizzle", Scope: "Global", Tags: []string{},
		Source: "note", Importance: 0.5, Timestamp: now, CreatedAt: now, UpdatedAt: now}
	if err := store.Memories.Insert(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := store.InvalidateSnapshot(ctx); err != nil {
		t.Fatal(err)
	}
	if err := resume(true); err != nil {
		t.Fatal(err)
	}
	// Nothing vouches for a snapshot now: one recorded here would be of
	// the index from before the restore, and a start after a crash would
	// trust it.
	var rec bson.M
	if err := store.GetMeta(ctx, "index_snapshot", &rec); !errors.Is(err, mongostore.ErrNotFound) {
		t.Fatalf("a snapshot is vouched for after the restore: %v %v", rec, err)
	}
	if seen := listAll(t, c); !seen[m.ID.Hex()] {
		t.Fatalf("the memory the restore wrote is not served: %v", seen)
	}
}
