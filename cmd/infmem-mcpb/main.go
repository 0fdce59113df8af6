// Command infmem-mcpb builds infmem's MCP Bundle (.mcpb), the file Claude
// Desktop installs with one click: a zip of manifest.json, infmem
// binaries for macOS (one universal binary for arm64 and amd64), Windows
// amd64 and Linux amd64, whose server entry runs `infmem mcp`, and one copy
// of the USE-lite weights they share (server/model/use-lite.bin: the
// binaries are built without embedded weights, see BuildTags).
//
//	go run ./cmd/infmem-mcpb -o dist/infmem.mcpb
//
// The manifest's hand-written part is packaging/mcpb/manifest.template.json;
// the builder adds the version, the server entry for each platform, the
// tool list (from internal/mcptools, as the server registers it) and the
// platforms. -manifest writes the manifest alone, without building, for
// `mcpb validate`. It is a development tool; it is not installed with
// infmem.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		if err == errUsage {
			os.Exit(2) // the flag package has said what is wrong
		}
		fmt.Fprintln(os.Stderr, "infmem-mcpb:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("infmem-mcpb", flag.ContinueOnError)
	out := fs.String("o", "dist/infmem.mcpb", "the bundle to write")
	targetsFlag := fs.String("targets", joinTargets(defaultTargets), "GOOS/GOARCH list to build (macOS ones become one universal binary)")
	versionFlag := fs.String("version", "", "the bundle's semantic version, also stamped into infmem (default: 0.0.0-dev+<git commit>)")
	manifestOnly := fs.String("manifest", "", "write only the manifest to this file, for -targets, without building")
	printTags := fs.Bool("build-tags", false, "print the build tags of a shipped binary and exit")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go run ./cmd/infmem-mcpb [-o FILE] [-targets LIST] [-version X.Y.Z] [-manifest FILE | -build-tags]\n\nBinaries are built with -tags %s -trimpath -ldflags '-s -w', CGO_ENABLED=0.\n\n", BuildTags)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *printTags {
		fmt.Println(BuildTags)
		return nil
	}
	targets, err := parseTargets(*targetsFlag)
	if err != nil {
		return err
	}
	modDir, err := moduleDir(ctx)
	if err != nil {
		return err
	}
	version, err := bundleVersion(ctx, *versionFlag, modDir)
	if err != nil {
		return err
	}
	if *manifestOnly != "" {
		return writeManifestOnly(modDir, *manifestOnly, version, targets)
	}
	_, err = build(ctx, options{modDir: modDir, out: *out, targets: targets, version: version, log: os.Stderr})
	return err
}

func writeManifestOnly(modDir, out, version string, targets []target) error {
	tmpl, err := readTemplate(filepath.Join(modDir, templatePath))
	if err != nil {
		return err
	}
	plats, err := platforms(targets)
	if err != nil {
		return err
	}
	b, err := encodeManifest(buildManifest(tmpl, version, plats))
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}

func joinTargets(ts []target) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ",")
}
