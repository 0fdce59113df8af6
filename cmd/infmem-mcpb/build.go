package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/infmem/infmem/internal/embed"
)

// BuildTags leave out of infmem what it never runs: FerretDB's PostgreSQL
// backend (infmem embeds FerretDB with SQLite only) and gRPC's
// golang.org/x/net/trace (gRPC comes in through FerretDB's OpenTelemetry
// exporter and never serves); and what the bundle ships once beside its
// binaries rather than in each: the USE-lite weights
// (infmem_external_model: the binary reads server/model/use-lite.bin,
// checked against the SHA-256 it was built with). Every command that builds
// a bundle's binary passes them. Without the first two infmem works the
// same and is larger; without the third it carries its own weights.
const BuildTags = "ferretdb_no_postgresql,grpcnotrace," + ExternalModelTag

// ExternalModelTag builds infmem without embedded weights (see
// internal/embed/weights.go).
const ExternalModelTag = "infmem_external_model"

// releaseFlags are the go build flags of a shipped binary: no symbol table
// or DWARF (-s -w), no paths of the build machine (-trimpath).
func releaseFlags(version string) []string {
	return []string{"-trimpath", "-tags", BuildTags,
		"-ldflags", "-s -w -X github.com/infmem/infmem/internal/version.Version=v" + version}
}

// target is one GOOS/GOARCH the bundle carries a binary for.
type target struct{ goos, goarch string }

func (t target) String() string { return t.goos + "/" + t.goarch }

// defaultTargets are the platforms of the published bundle.
var defaultTargets = []target{{"darwin", "arm64"}, {"darwin", "amd64"}, {"windows", "amd64"}, {"linux", "amd64"}}

func parseTargets(s string) ([]target, error) {
	var out []target
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		goos, goarch, ok := strings.Cut(f, "/")
		if !ok || goos == "" || goarch == "" {
			return nil, fmt.Errorf("target %q: want GOOS/GOARCH, e.g. darwin/arm64", f)
		}
		t := target{goos, goarch}
		if slices.Contains(out, t) {
			return nil, fmt.Errorf("target %s given twice", t)
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no targets")
	}
	return out, nil
}

// platform is one entry of the manifest's platforms: a client's
// process.platform name and the binary it runs. macOS gets one universal
// binary for all its architectures; the others one binary each.
type platform struct {
	name    string // darwin, win32 or linux
	goos    string
	targets []target
}

// entry is the binary's path inside the bundle.
func (p platform) entry() string {
	file := "infmem"
	if p.goos == "windows" {
		file += ".exe"
	}
	return path.Join("server", p.name, file)
}

// modelEntry is the one copy of the USE-lite weights in the bundle, where
// every platform's binary looks for it: ../model/use-lite.bin from its own
// directory (server/<platform>/).
var modelEntry = path.Join("server", "model", embed.WeightsFile)

var clientPlatform = map[string]string{"darwin": "darwin", "windows": "win32", "linux": "linux"}

// platforms groups targets by client platform, in the order darwin,
// win32, linux.
func platforms(ts []target) ([]platform, error) {
	var out []platform
	for _, goos := range []string{"darwin", "windows", "linux"} {
		p := platform{name: clientPlatform[goos], goos: goos}
		for _, t := range ts {
			if t.goos == goos {
				p.targets = append(p.targets, t)
			}
		}
		if len(p.targets) == 0 {
			continue
		}
		if len(p.targets) > 1 && goos != "darwin" {
			return nil, fmt.Errorf("%s: a bundle runs one binary per platform; only macOS binaries are combined (into a universal binary)", goos)
		}
		out = append(out, p)
	}
	for _, t := range ts {
		if _, ok := clientPlatform[t.goos]; !ok {
			return nil, fmt.Errorf("target %s: MCP Bundles run on darwin, windows and linux only", t)
		}
	}
	return out, nil
}

var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// bundleVersion checks -version (a leading v is dropped), or derives a
// development version from the Git commit when none is given.
func bundleVersion(ctx context.Context, flag, modDir string) (string, error) {
	if flag != "" {
		v := strings.TrimPrefix(flag, "v")
		if !semver.MatchString(v) {
			return "", fmt.Errorf("-version %q is not a semantic version (e.g. 1.2.0)", flag)
		}
		return v, nil
	}
	v := "0.0.0-dev"
	out, err := exec.CommandContext(ctx, "git", "-C", modDir, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return v, nil
	}
	v += "+" + strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "-C", modDir, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		v += ".dirty"
	}
	if !semver.MatchString(v) {
		return "0.0.0-dev", nil
	}
	return v, nil
}

// moduleDir is the root of the infmem module the builder runs in.
func moduleDir(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run infmem-mcpb inside the infmem module (no go.mod here)")
	}
	dir := filepath.Dir(mod)
	if _, err := os.Stat(filepath.Join(dir, "cmd", "infmem")); err != nil {
		return "", fmt.Errorf("%s is not the infmem module (no cmd/infmem)", dir)
	}
	return dir, nil
}

// goBuild cross-compiles cmd/infmem for t into out, as shipped: static
// (CGO_ENABLED=0), with BuildTags and releaseFlags.
func goBuild(ctx context.Context, modDir string, t target, version, out string, log io.Writer) error {
	args := append([]string{"build"}, releaseFlags(version)...)
	args = append(args, "-o", out, "./cmd/infmem")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = modDir
	cmd.Env = append(os.Environ(), "GOOS="+t.goos, "GOARCH="+t.goarch, "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s: %w", t, err)
	}
	return nil
}
