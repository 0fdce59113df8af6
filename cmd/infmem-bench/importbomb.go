//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/infmem/infmem/internal/testenv"
)

// benchImportBomb imports, through the daemon pid, a ChatGPT export zip
// whose conversations.json inflates to mib MiB from about mib KiB (the zip
// bomb of issue 22, which took the daemon to 5 GB), and prints how it
// ended and the daemon's peak RSS before and after.
func benchImportBomb(ctx context.Context, bin string, env []string, dir string, pid, mib int) error {
	bomb := filepath.Join(dir, "bomb-export.zip")
	if err := testenv.WriteZipBomb(bomb, mib); err != nil {
		return err
	}
	defer os.Remove(bomb)
	fi, err := os.Stat(bomb)
	if err != nil {
		return err
	}
	_, peakBefore := procRSS(pid)
	cmd := exec.CommandContext(ctx, bin, "import", bomb)
	cmd.Env = env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	t0 := time.Now()
	runErr := cmd.Run()
	wall := time.Since(t0)
	_, peak := procRSS(pid)
	outcome := "imported (it should have been refused)"
	if runErr != nil {
		outcome = "refused: " + string(bytes.TrimSpace(errb.Bytes()))
	}
	fmt.Printf("daemon, zip bomb (%.1f MB zip, %d MiB inflated): %s, in %v; daemon peak RSS %.0f MB before, %.0f MB after\n",
		float64(fi.Size())/1e6, mib, outcome, wall.Round(time.Millisecond), mb(peakBefore), mb(peak))
	return nil
}
