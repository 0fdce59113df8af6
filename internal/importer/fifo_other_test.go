//go:build !unix

package importer

import "errors"

// mkfifo: FIFOs are a unix thing; the test that makes one skips elsewhere.
func mkfifo(string) error { return errors.New("no FIFOs on this system") }
