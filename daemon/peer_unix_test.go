//go:build linux

package daemon

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
