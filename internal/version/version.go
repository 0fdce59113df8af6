// Package version owns what infmem reports as its version.
package version

import (
	"runtime"
	"runtime/debug"
)

// Version is set at link time (-ldflags "-X github.com/infmem/infmem/internal/version.Version=v1.2.3");
// otherwise it comes from the module build info, or is "dev".
var Version = ""

// String returns the version of this binary.
func String() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// Long returns the version with the Go toolchain and platform.
func Long() string {
	return String() + " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}
