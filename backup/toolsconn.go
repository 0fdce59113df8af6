package backup

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// toolsURI returns the connection string mongo-tools should use for uri,
// and a cleanup to run when it is done.
//
// mongo-tools is built on mongo-driver v1, which lowercases every server
// address, unix socket paths included (address.Address.String), so a
// socket under a path with capitals (a home directory like /home/Sam, a
// test's temporary directory) cannot be reached on a case-sensitive file
// system. Such a path is given a lowercase alias: a symlink in a private
// directory under /tmp. The socket's own permissions still apply.
func toolsURI(uri string) (string, func(), error) {
	noop := func() {}
	const scheme = "mongodb://"
	if !strings.HasPrefix(uri, scheme) || runtime.GOOS == "windows" {
		// Windows file systems ignore case.
		return uri, noop, nil
	}
	rest := uri[len(scheme):]
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	userinfo, host := "", authority
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		userinfo, host = authority[:at+1], authority[at+1:]
	}
	path, err := url.PathUnescape(host)
	if err != nil || !strings.HasPrefix(path, "/") || strings.ToLower(path) == path {
		return uri, noop, nil
	}
	base := os.TempDir()
	if strings.ToLower(base) != base {
		base = "/tmp"
	}
	dir, err := os.MkdirTemp(base, "infmem-dump-")
	if err != nil {
		return "", noop, fmt.Errorf("cannot make a lowercase alias for the database socket: %w", err)
	}
	alias := filepath.Join(dir, "db.sock")
	if strings.ToLower(alias) != alias {
		os.RemoveAll(dir)
		return "", noop, errors.New("cannot make a lowercase alias for the database socket: no lowercase temporary directory")
	}
	if err := os.Symlink(path, alias); err != nil {
		os.RemoveAll(dir)
		return "", noop, fmt.Errorf("cannot make a lowercase alias for the database socket: %w", err)
	}
	return scheme + userinfo + url.PathEscape(alias) + tail, func() { os.RemoveAll(dir) }, nil
}

// asksForPassword reports whether mongo-tools would stop to prompt for a
// password on the terminal: the connection string names a user but no
// password, for a mechanism that needs one. A daemon has no one to ask.
func asksForPassword(uri string) bool {
	rest, ok := strings.CutPrefix(uri, "mongodb://")
	if !ok {
		rest, ok = strings.CutPrefix(uri, "mongodb+srv://")
	}
	if !ok {
		return false
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 || strings.Contains(rest[:at], ":") {
		return false
	}
	for _, mech := range []string{"MONGODB-X509", "GSSAPI", "MONGODB-OIDC", "MONGODB-AWS"} {
		if strings.Contains(strings.ToUpper(rest[end:]), "AUTHMECHANISM="+mech) {
			return false
		}
	}
	return true
}
