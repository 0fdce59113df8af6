package main

import (
	"archive/zip"
	"bytes"
	"context"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/binary"
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/embed"
)

var allTargets = flag.Bool("all", false, "build the bundle for every released platform (slow: four cross-compiles), not only this machine's")

// TestBundle builds the bundle as released (for this machine's platform
// only unless -all), unpacks it as a client does, starts the binary with
// the manifest's command and arguments on a fresh data root, and talks MCP
// to it over stdio: initialize, tools/list against the manifest, and a
// memory stored and recalled through the embedded engine.
func TestBundle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds infmem")
	}
	ctx := context.Background()
	modDir, err := moduleDir(ctx)
	if err != nil {
		t.Fatal(err)
	}
	host := target{runtime.GOOS, runtime.GOARCH}
	targets := []target{host}
	if *allTargets {
		targets = defaultTargets
	}
	if _, err := platforms(targets); err != nil {
		t.Skipf("no bundle for %s: %v", host, err)
	}
	const version = "1.2.3-test"
	bundle := filepath.Join(t.TempDir(), "dist", "infmem.mcpb")
	var log bytes.Buffer
	start := time.Now()
	built, err := build(ctx, options{modDir: modDir, out: bundle, targets: targets, version: version, log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	t.Logf("built in %v:\n%s", time.Since(start).Round(time.Millisecond), log.String())

	ext := filepath.Join(t.TempDir(), "ext")
	names := unpack(t, bundle, ext)
	if names[0] != "manifest.json" {
		t.Errorf("first entry %q, want manifest.json", names[0])
	}
	var m manifest
	mb, err := os.ReadFile(filepath.Join(ext, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(mb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.Version != version || m.Server.Type != "binary" || !slices.Equal(m.Server.MCPConfig.Args, []string{"mcp"}) {
		t.Fatalf("manifest: %s", mb)
	}
	if m.Server.EntryPoint != strings.TrimPrefix(m.Server.MCPConfig.Command, "${__dirname}/") {
		t.Errorf("entry_point %q, command %q", m.Server.EntryPoint, m.Server.MCPConfig.Command)
	}
	for _, n := range []string{"licenses/use-lite/LICENSE", "licenses/use-lite/NOTICE", modelEntry} {
		if !slices.Contains(names, n) {
			t.Errorf("bundle lacks %s", n)
		}
	}
	if err := checkWeights(filepath.Join(ext, filepath.FromSlash(modelEntry))); err != nil {
		t.Errorf("the bundle's weights: %v", err)
	}
	blobHead := make([]byte, 4096) // the blob's header and tensor table
	if f, err := os.Open(filepath.Join(modDir, weightsSrc)); err != nil {
		t.Fatal(err)
	} else if _, err := io.ReadFull(f, blobHead); err != nil {
		t.Fatal(err)
	} else {
		f.Close()
	}
	// Every platform the manifest names has its binary in the bundle, and
	// the binary finds the one copy of the weights at ../model/ from its
	// directory and carries none itself.
	for _, p := range m.Compatibility.Platforms {
		o, ok := m.Server.MCPConfig.PlatformOverrides[p]
		rel := strings.TrimPrefix(o.Command, "${__dirname}/")
		if !ok || !slices.Contains(names, rel) {
			t.Errorf("platform %s: command %q not in the bundle %v", p, o.Command, names)
			continue
		}
		if w := path.Join(path.Dir(rel), "..", "model", embed.WeightsFile); w != modelEntry {
			t.Errorf("platform %s: %s looks for its weights at %s, the bundle has them at %s", p, rel, w, modelEntry)
		}
		checkNoWeights(t, filepath.Join(ext, filepath.FromSlash(rel)), blobHead)
	}
	if *allTargets {
		checkReleasedBinaries(t, ext, m)
	}
	if t.Failed() {
		return
	}

	// The command a client runs on this machine, ${__dirname} replaced.
	cmd := m.Server.MCPConfig.Command
	if o, ok := m.Server.MCPConfig.PlatformOverrides[clientPlatform[runtime.GOOS]]; ok {
		cmd = o.Command
	}
	cmd = strings.ReplaceAll(cmd, "${__dirname}", ext)
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(cmd); err != nil || fi.Mode().Perm()&0o111 == 0 {
			t.Fatalf("%s is not executable after unpacking: %v %v", cmd, fi.Mode(), err)
		}
	}
	checkReleaseBuild(t, cmd)

	// The weights come from the bundle, not from the developer's
	// $INFMEM_MODEL.
	srv := serve(t, cmd, m.Server.MCPConfig.Args, embed.ModelEnv+"=")
	res, err := srv.c.Initialize(srv.ctx, initRequest())
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ServerInfo.Name != "infmem" || res.ServerInfo.Version != "v"+version || res.Instructions == "" || res.Capabilities.Tools == nil {
		t.Fatalf("initialize: %+v", res)
	}
	tools, err := srv.c.ListTools(srv.ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var served, listed []string
	for _, tl := range tools.Tools {
		served = append(served, tl.Name)
	}
	for _, tl := range m.Tools {
		listed = append(listed, tl.Name)
	}
	if !slices.Equal(slices.Sorted(slices.Values(served)), slices.Sorted(slices.Values(listed))) {
		t.Errorf("tools/list %v\nmanifest   %v", served, listed)
	}
	if !slices.Equal(listed, toolNames(built.Tools)) {
		t.Errorf("the bundle's manifest lists %v, the builder %v", listed, toolNames(built.Tools))
	}

	// The embedded engine (FerretDB with SQLite, built with BuildTags)
	// works, and semantic search through the weights the binary read from
	// the bundle: a paraphrase that shares no word with the memory finds
	// it first (keyword ranking alone finds nothing).
	storeTwo(srv)
	if got := srv.call("retrieve_memory", map[string]any{"query": "what is the cat called"}); !strings.Contains(got, "Miso") {
		t.Errorf("retrieve_memory: %s", got)
	}
	if got := srv.call("retrieve_memory", map[string]any{"query": paraphrase}); !firstFound(got) {
		t.Errorf("retrieve_memory by a paraphrase: %s", got)
	}
	weights := filepath.Join(ext, filepath.FromSlash(modelEntry))
	if es := srv.status().Embedding; es == nil || es.State != control.EmbeddingReady || es.Weights != weights {
		t.Errorf("status: embedding %+v, want ready with the weights at %s", es, weights)
	}

	// Weights that are not the ones built for (here truncated) are
	// refused: the memory works on with keyword ranking only, and status
	// says why, naming the file.
	bad := filepath.Join(t.TempDir(), embed.WeightsFile)
	if err := os.WriteFile(bad, blobHead, 0o644); err != nil {
		t.Fatal(err)
	}
	srv = serve(t, cmd, m.Server.MCPConfig.Args, embed.ModelEnv+"="+bad)
	if _, err := srv.c.Initialize(srv.ctx, initRequest()); err != nil {
		t.Fatalf("initialize with bad weights: %v", err)
	}
	storeTwo(srv)
	if got := srv.call("retrieve_memory", map[string]any{"query": "what is the cat called"}); !strings.Contains(got, "Miso") {
		t.Errorf("retrieve_memory without a model: %s", got)
	}
	if got := srv.call("retrieve_memory", map[string]any{"query": paraphrase}); strings.Contains(got, "Miso") {
		t.Errorf("retrieve_memory by a paraphrase without a model found it: %s", got)
	}
	if es := srv.status().Embedding; es == nil || es.State != control.EmbeddingFailed || es.Weights != bad ||
		!strings.Contains(es.Error, bad) || !strings.Contains(es.Error, "hint: ") {
		t.Errorf("status with bad weights: embedding %+v", es)
	}
}

// paraphrase asks for the memory storeTwo stores first with none of its
// words nor any of their synonyms the keyword stage adds (package
// lexicon: "name" is "call", as in "called"), so only meaning finds it.
const paraphrase = "nickname of my feline pet"

func storeTwo(srv *mcpServer) {
	srv.call("store_memory", map[string]any{"content": "The bundle test's cat is called Miso"})
	srv.call("store_memory", map[string]any{"content": "Backups of the build server run every Tuesday night"})
}

// firstFound reports whether a retrieve_memory result lists the cat's
// memory, before the other.
func firstFound(got string) bool {
	i, j := strings.Index(got, "Miso"), strings.Index(got, "Tuesday")
	return i >= 0 && (j < 0 || i < j)
}

func initRequest() mcp.InitializeRequest {
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "claude-ai", Version: "0.1.0"}
	return init
}

// mcpServer is a bundle binary started as a client starts it, on a fresh
// data root, home and config.
type mcpServer struct {
	t         *testing.T
	cmd, root string
	env       []string
	c         *client.Client
	ctx       context.Context
}

// serve starts cmd with args and the environment a fresh user has, plus
// extraEnv; the daemon it starts is stopped when the test ends.
func serve(t *testing.T, cmd string, args []string, extraEnv ...string) *mcpServer {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	home := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"INFMEM_DATA_DIR=" + root, "INFMEM_CONFIG=" + cfg, "HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"APPDATA=" + filepath.Join(home, "AppData", "Roaming"), "LOCALAPPDATA=" + filepath.Join(home, "AppData", "Local")}
	env = append(env, extraEnv...)
	// 'infmem mcp' starts a daemon that outlives it: stop it at the end.
	t.Cleanup(func() {
		if _, err := os.Stat(root); err != nil {
			return
		}
		stop := exec.Command(cmd, "stop", "--data-dir", root)
		stop.Env = append(os.Environ(), env...)
		if out, err := stop.CombinedOutput(); err != nil {
			t.Errorf("infmem stop: %v\n%s", err, out)
		}
	})
	c, err := client.NewStdioMCPClient(cmd, env, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return &mcpServer{t: t, cmd: cmd, root: root, env: env, c: c, ctx: ctx}
}

// call calls a tool and returns its text; a failure ends the test.
func (s *mcpServer) call(name string, args map[string]any) string {
	s.t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	r, err := s.c.CallTool(s.ctx, req)
	if err != nil {
		s.t.Fatalf("%s: %v", name, err)
	}
	text := r.Content[0].(mcp.TextContent).Text
	if r.IsError {
		s.t.Fatalf("%s: %s", name, text)
	}
	return text
}

// status runs `infmem status --json` and returns the daemon's part.
func (s *mcpServer) status() (st struct {
	Daemon    struct{ Presence string }
	Embedding *control.EmbeddingStatus
}) {
	s.t.Helper()
	c := exec.Command(s.cmd, "status", "--json", "--data-dir", s.root)
	c.Env = append(os.Environ(), s.env...)
	out, err := c.Output()
	if err != nil {
		s.t.Fatalf("infmem status: %v\n%s", err, out)
	}
	if err := json.Unmarshal(out, &st); err != nil || st.Daemon.Presence != "running" {
		s.t.Fatalf("infmem status: %v\n%s", err, out)
	}
	return st
}

// maxBinaryBytes is the size budget of one platform's binary in the bundle
// (issue 15): each architecture of the macOS universal binary, the Windows
// and the Linux binary.
const maxBinaryBytes = 35_000_000

// checkNoWeights fails if bin holds the weight blob, whose first bytes
// (header and tensor table) are head, or exceeds maxBinaryBytes.
func checkNoWeights(t *testing.T, bin string, head []byte) {
	t.Helper()
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, head) {
		t.Errorf("%s embeds the USE-lite weights despite -tags %s", bin, ExternalModelTag)
	}
	sizes := map[string]int64{"": int64(len(b))}
	if ff, err := macho.NewFatFile(bytes.NewReader(b)); err == nil {
		sizes = map[string]int64{}
		for _, a := range ff.Arches {
			sizes[a.Cpu.String()] = int64(a.Size)
		}
	}
	for arch, n := range sizes {
		if n > maxBinaryBytes {
			t.Errorf("%s %s is %d bytes, over the budget of %d", bin, arch, n, maxBinaryBytes)
		}
	}
}

func toolNames(ts []tool) []string {
	var s []string
	for _, t := range ts {
		s = append(s, t.Name)
	}
	return s
}

// unpack extracts a bundle as MCP Bundle clients do (Unix modes from the
// entries' external attributes) and returns the entry names in order.
func unpack(t *testing.T, bundle, dir string) []string {
	t.Helper()
	zr, err := zip.OpenReader(bundle)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if !filepath.IsLocal(f.Name) || f.Mode().IsDir() {
			t.Fatalf("entry %q", f.Name)
		}
		if f.CreatorVersion>>8 != 3 { // made on Unix: the mode is kept
			t.Errorf("%s: creator %d, want Unix", f.Name, f.CreatorVersion>>8)
		}
		dst := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		w, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.Mode().Perm())
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(w, r)
		r.Close()
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return names
}

// checkReleaseBuild checks that bin was built as shipped: with BuildTags,
// trimmed paths and no cgo, and (an ELF file) stripped. (-trimpath keeps
// -ldflags out of the build info.)
func checkReleaseBuild(t *testing.T, bin string) {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	info := string(out)
	for _, want := range []string{"-tags=" + BuildTags, "-trimpath=true", "CGO_ENABLED=0"} {
		if !strings.Contains(info, want) {
			t.Errorf("%s was not built with %s:\n%s", bin, want, info)
		}
	}
	if strings.Contains(info, "github.com/jackc/pgx") {
		t.Errorf("%s links the PostgreSQL driver despite %s", bin, BuildTags)
	}
	if ef, err := elf.Open(bin); err == nil {
		defer ef.Close()
		for _, s := range ef.Sections {
			if s.Name == ".symtab" || strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
				t.Errorf("%s is not stripped: it has %s", bin, s.Name)
			}
		}
	}
}

// checkReleasedBinaries checks each released binary's format and
// architecture: macOS universal (arm64, signed, and amd64),
// Windows amd64 PE, Linux amd64 static ELF.
func checkReleasedBinaries(t *testing.T, ext string, m manifest) {
	t.Helper()
	bin := func(p string) string {
		return filepath.Join(ext, filepath.FromSlash(strings.TrimPrefix(m.Server.MCPConfig.PlatformOverrides[p].Command, "${__dirname}/")))
	}
	f, err := os.Open(bin("darwin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ff, err := macho.NewFatFile(f)
	if err != nil {
		t.Fatalf("darwin: not a universal binary: %v", err)
	}
	var cpus []macho.Cpu
	for _, a := range ff.Arches {
		cpus = append(cpus, a.Cpu)
		signed := false
		for _, l := range a.Loads {
			if raw := l.Raw(); len(raw) >= 4 && binary.LittleEndian.Uint32(raw) == 0x1d { // LC_CODE_SIGNATURE
				signed = true
			}
		}
		// macOS runs no unsigned arm64 code; the Go linker signs arm64
		// binaries ad hoc (amd64 ones need no signature).
		if a.Cpu == macho.CpuArm64 && !signed {
			t.Errorf("darwin %v slice has no code signature", a.Cpu)
		}
	}
	if !slices.Equal(cpus, []macho.Cpu{macho.CpuArm64, macho.CpuAmd64}) {
		t.Errorf("darwin arches %v", cpus)
	}
	checkReleaseBuild(t, bin("darwin"))

	pf, err := pe.Open(bin("win32"))
	if err != nil {
		t.Fatalf("win32: %v", err)
	}
	if pf.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		t.Errorf("win32 machine %#x", pf.Machine)
	}
	pf.Close()
	checkReleaseBuild(t, bin("win32"))

	ef, err := elf.Open(bin("linux"))
	if err != nil {
		t.Fatalf("linux: %v", err)
	}
	if ef.Machine != elf.EM_X86_64 {
		t.Errorf("linux machine %v", ef.Machine)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("linux binary is dynamically linked")
		}
	}
	ef.Close()
	checkReleaseBuild(t, bin("linux"))
}
