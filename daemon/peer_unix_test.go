//go:build linux

package daemon

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// foreignDial runs in a child process under another uid: it connects to
// the MCP socket at path, sends initialize and prints what came back.
func foreignDial(path string) {
	c, err := net.Dial("unix", path)
	if err != nil {
		fmt.Println("dial:", err)
		os.Exit(0)
	}
	defer c.Close()
	fmt.Fprintln(c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"intruder","version":"1"}}}`)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	fmt.Printf("answer: %q %v\n", line, err)
	os.Exit(0)
}

// TestForeignUserRefused: even when the run folder's permissions are
// loosened (the first defence), a process of another user that reaches the
// MCP socket is refused by its peer credentials and gets no answer (issue
// 13). Needs root, to run the intruder as another uid.
func TestForeignUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	root := testRoot(t)
	d := startDaemon(t, testOptions(t, root))
	sock := d.Endpoints().MCP
	for dir := filepath.Dir(sock); ; dir = filepath.Dir(dir) {
		os.Chmod(dir, 0o755)
		if dir == filepath.Dir(root.Path()) || dir == "/" {
			break
		}
	}
	os.Chmod(sock, 0o777)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A copy the other user may run (go test's build folder is private).
	bin, err := os.MkdirTemp("", "infpeer")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(bin) })
	os.Chmod(bin, 0o755)
	exe := filepath.Join(bin, "intruder")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "INFMEM_TEST_FOREIGN_DIAL="+sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("intruder: %v %s", err, out)
	}
	got := string(out)
	if strings.HasPrefix(got, "dial:") {
		t.Fatalf("the intruder could not reach the socket, so nothing was tested: %s", got)
	}
	if !strings.HasPrefix(got, "answer:") || strings.Contains(got, "protocolVersion") || strings.Contains(got, "serverInfo") {
		t.Fatalf("a process of another user was answered: %s", got)
	}
	// The daemon still serves its own user.
	callOK(t, connect(t, d), "get_memory_stats", nil)
}

// foreignMongo runs in a child process under another uid: it asks the
// database engine at the unix socket path for its databases.
func foreignMongo(path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	uri := "mongodb://" + url.PathEscape(path) + "/?serverSelectionTimeoutMS=5000&connectTimeoutMS=5000"
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		fmt.Println("connect:", err)
		os.Exit(0)
	}
	defer c.Disconnect(ctx)
	names, err := c.ListDatabaseNames(ctx, bson.D{})
	fmt.Printf("databases: %v %v\n", names, err)
	os.Exit(0)
}

// Issue 22, item 8: run/mongo.sock, the embedded engine's socket, was
// 0755 (0777 under umask 000) with no peer check; with run/ loosened
// another user listed the databases and read memories, while doctor said
// the engine refused other users. Now it is 0600, FerretDB's own socket
// too, and a process of another user that reaches it anyway (permissions
// loosened by hand) is refused by its peer credentials. Needs root.
func TestForeignUserRefusedByTheEngine(t *testing.T) {
	root := testRoot(t)
	d := startDaemon(t, testOptions(t, root))
	callOK(t, connect(t, d), "store_memory", map[string]any{"content": "The safe's combination is 31-17-45"})
	run := root.RunDir()
	for _, name := range []string{"mongo.sock", "engine.sock"} {
		fi, err := os.Stat(filepath.Join(run, name))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v; want mode 0600", name, fi, err)
		}
	}
	if os.Getuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	sock := filepath.Join(run, "mongo.sock")
	for dir := run; ; dir = filepath.Dir(dir) {
		os.Chmod(dir, 0o755)
		if dir == filepath.Dir(root.Path()) || dir == "/" {
			break
		}
	}
	os.Chmod(sock, 0o777)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.MkdirTemp("", "infpeer")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(bin) })
	os.Chmod(bin, 0o755)
	exe := filepath.Join(bin, "intruder")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "INFMEM_TEST_FOREIGN_MONGO="+sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("intruder: %v %s", err, out)
	}
	got := string(out)
	t.Logf("the intruder got: %s", strings.TrimSpace(got))
	if !strings.HasPrefix(got, "databases:") || !strings.Contains(got, "[]") || strings.Contains(got, "<nil>") {
		t.Fatalf("a process of another user reached the engine: %s", got)
	}
	if strings.Contains(got, "permission denied") {
		t.Fatalf("the intruder could not reach the socket, so the peer check was not tested: %s", got)
	}
	// The daemon still serves its own user.
	callOK(t, connect(t, d), "get_memory_stats", nil)
}
