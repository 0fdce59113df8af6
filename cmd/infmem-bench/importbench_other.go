//go:build !unix

package main

import (
	"context"
	"errors"
)

// runImportBench reads peak RSS and CPU time from getrusage, which only
// unix systems have.
func runImportBench(context.Context, []string) error {
	return errors.New("the import benchmark runs on unix systems only")
}
