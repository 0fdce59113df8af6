package webui

import (
	"crypto/rand"
	"fmt"
	"html"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/infmem/infmem/internal/peercred"
)

// listenLoopback listens on a loopback address and a port the system
// picks. On Linux, where all of 127.0.0.0/8 is this machine, the address
// is a random one (127.x.y.z), so that the page's cookie, which a browser
// sends to every port of a host, has a host of its own: a server on
// 127.0.0.1 (another user's, say) never receives it. Elsewhere, and if
// that fails, 127.0.0.1.
func listenLoopback() (net.Listener, error) {
	if runtime.GOOS == "linux" {
		var b [3]byte
		rand.Read(b[:])
		ip := fmt.Sprintf("127.%d.%d.%d", 1+int(b[0])%254, 1+int(b[1])%254, 1+int(b[2])%254)
		if ln, err := net.Listen("tcp4", ip+":0"); err == nil {
			return ln, nil
		}
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cannot listen on 127.0.0.1 for the UI: %w", err)
	}
	return ln, nil
}

// peerListener accepts only connections from processes of the user who
// runs the daemon, where the system can tell (Linux: the owner of the
// peer's socket in /proc/net/tcp). Another user's connection is closed
// before a byte is read: a launch link or a cookie taken from this user
// is worth nothing to them.
type peerListener struct {
	net.Listener
	log *slog.Logger
}

func (l peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if err := peercred.Check(c); err != nil {
			l.log.Warn("UI connection refused", "peer", c.RemoteAddr().String(), "err", err)
			c.Close()
			continue
		}
		return c, nil
	}
}

// launchFilePrefix starts the name of every launch file.
const launchFilePrefix = "ui-launch-"

// writeLaunchFile writes, in dir, a private HTML file that sends a
// browser on to url, and returns its path.
func writeLaunchFile(dir, url string) (string, error) {
	var b [8]byte
	rand.Read(b[:])
	path := filepath.Join(dir, fmt.Sprintf("%s%x.html", launchFilePrefix, b))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("cannot write the UI's launch file: %w", err)
	}
	u := html.EscapeString(url)
	_, werr := fmt.Fprintf(f, `<!doctype html>
<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url=%s"><title>infmem</title></head>
<body><p>Opening infmem&hellip; If nothing happens, <a href="%s">open the page</a>.</p></body></html>
`, u, u)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return "", fmt.Errorf("cannot write the UI's launch file: %w", werr)
	}
	return path, nil
}

func removeLaunchFile(path string) {
	if path != "" {
		os.Remove(path)
	}
}

// removeLaunchFiles deletes every launch file in dir.
func removeLaunchFiles(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), launchFilePrefix) && strings.HasSuffix(e.Name(), ".html") {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
