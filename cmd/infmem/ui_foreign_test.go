package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// runForeign is what this test binary does when a test runs it as
// another user (see TestMain): spy on command lines for the page's link,
// or open a link it was given. It reports true when it ran.
func runForeign() bool {
	switch {
	case os.Getenv("INFMEM_TEST_SPY_CMDLINES") != "":
		spyCmdlines()
	case os.Getenv("INFMEM_TEST_FOREIGN_GET") != "":
		fmt.Println(foreignGet(os.Getenv("INFMEM_TEST_FOREIGN_GET")))
	default:
		return false
	}
	return true
}

var launchLink = regexp.MustCompile(`http://[0-9.:]+/launch\?k=[A-Za-z0-9_-]+`)

// spyCmdlines polls every process's command line, as any user may, until
// its stdin closes; each page link it sees, it opens at once, and prints
// what it got.
func spyCmdlines() {
	stop := make(chan struct{})
	go func() {
		bufio.NewReader(os.Stdin).ReadString('\n')
		close(stop)
	}()
	fmt.Println("ready")
	tried := map[string]bool{}
	for {
		select {
		case <-stop:
			fmt.Println("done")
			return
		default:
		}
		paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			for _, link := range launchLink.FindAllString(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), -1) {
				if !tried[link] {
					tried[link] = true
					fmt.Println("stolen:", foreignGet(link))
				}
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// foreignGet opens a page link and says what came back.
func foreignGet(link string) string {
	c := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(link)
	if err != nil {
		return "error: " + err.Error()
	}
	resp.Body.Close()
	return fmt.Sprintf("status %d, %d cookies", resp.StatusCode, len(resp.Cookies()))
}

// Issue 22, item 2: `infmem ui` ran `xdg-open http://127.0.0.1:P/launch?k=SECRET`;
// another local user polling /proc/*/cmdline took the link within
// milliseconds, got the session, and the user's own browser then got
// "already used". Now the opener is given a private file (run/, 0600)
// that leads to the link, and the page refuses connections from another
// user's processes, so a link that leaked some other way is no use to
// them either. Needs root, to run the spy as another user (nobody).
func TestUILinkIsNeverOnACommandLine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the opener and /proc/*/cmdline are Linux's")
	}
	root := shortRoot(t)
	env := processEnv(t, root)
	t.Cleanup(func() { stopDaemon(t, root, env) })
	// The system's opener, as a script that records what it was given
	// and stays a moment (a browser starting).
	bin := t.TempDir()
	opened := filepath.Join(bin, "opened")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + opened + "\nsleep 1\n"
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + bin + ":" + strings.TrimPrefix(kv, "PATH=")
		}
	}

	var spy *exec.Cmd
	spyOut := make(chan string, 1)
	var spyIn *os.File
	foreign := os.Getuid() == 0
	if foreign {
		exe := foreignCopy(t)
		spy = exec.Command(exe)
		spy.Env = []string{"INFMEM_TEST_SPY_CMDLINES=1"}
		spy.SysProcAttr = asNobody()
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		spy.Stdin, spyIn = r, w
		pr, pw, _ := os.Pipe()
		spy.Stdout = pw
		if err := spy.Start(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		pw.Close()
		br := bufio.NewReader(pr)
		if line, _ := br.ReadString('\n'); line != "ready\n" {
			t.Fatalf("the spy did not start: %q", line)
		}
		go func() {
			var b bytes.Buffer
			br.WriteTo(&b)
			spyOut <- b.String()
		}()
		t.Cleanup(func() { spyIn.Close(); spy.Wait() })
	} else {
		t.Log("not root: the spy (another user) is left out; only the command line is checked")
	}

	code, out, errs := runBin(t, env, "ui")
	if code != 0 {
		t.Fatalf("ui: %d %s", code, errs)
	}
	link := strings.TrimSpace(out)
	if !launchLink.MatchString(link) {
		t.Fatalf("ui printed %q", strings.SplitN(out, "?", 2)[0])
	}
	if foreign {
		spyIn.Close()
		spy.Wait()
		if got := <-spyOut; strings.Contains(got, "stolen") || !strings.Contains(got, "done") {
			t.Fatalf("another user took the page's link from a command line: %s", got)
		}
	}
	b, err := os.ReadFile(opened)
	if err != nil {
		t.Fatalf("the opener was not run: %v", err)
	}
	args := strings.Fields(string(b))
	secret := strings.SplitN(link, "k=", 2)[1]
	if len(args) != 1 || strings.Contains(string(b), secret) || strings.Contains(string(b), "k=") {
		t.Fatalf("the opener was given %q", b)
	}
	file := args[0]
	if filepath.Dir(file) != filepath.Join(root, "run") {
		t.Fatalf("the opener was given %s, not a file in the data root's run/", file)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the launch file %s: %v %v; want mode 0600", file, fi, err)
	}
	if page, _ := os.ReadFile(file); !strings.Contains(string(page), `url=`+link) {
		t.Fatalf("the launch file does not lead to the link:\n%s", page)
	}

	// A link that leaked some other way: another user's connection is
	// refused (and does not spend it).
	if foreign {
		exe := foreignCopy(t)
		cmd := exec.Command(exe)
		cmd.Env = []string{"INFMEM_TEST_FOREIGN_GET=" + link}
		cmd.SysProcAttr = asNobody()
		got, err := cmd.CombinedOutput()
		if err != nil || !strings.HasPrefix(string(got), "error:") {
			t.Fatalf("another user opening the link: %s %v; want the connection refused", got, err)
		}
		if !strings.Contains(serviceLog(t, root), "UI connection refused") {
			t.Fatal("the refused connection is not in the service log")
		}
	}
	// The user's own browser: the link works once, and the file is gone.
	if got := foreignGet(link); got != "status 303, 1 cookies" {
		t.Fatalf("the user's own browser opening the link: %s", got)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("the launch file outlived its link: %v", err)
	}
}

// foreignCopy is a copy of this test binary that another user may run
// (go test's build folder is private).
func foreignCopy(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "infspy")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	exe := filepath.Join(dir, "foreign")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}
