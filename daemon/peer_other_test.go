//go:build !linux

package daemon

import "os"

// The tests that run these in a child process under another uid are
// linux-only (peer_unix_test.go); elsewhere the helpers only exist so
// TestMain compiles.
func foreignDial(string) { os.Exit(2) }

func foreignMongo(string) { os.Exit(2) }
