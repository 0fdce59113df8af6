package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestWeightsSum keeps weights_sum.go in step with the blob: a build
// without embedded weights checks its file against these constants.
func TestWeightsSum(t *testing.T) {
	for name, b := range map[string][]byte{"useLiteBlob": useLiteBlob, "model/" + WeightsFile: readRepoBlob(t)} {
		sum := sha256.Sum256(b)
		if len(b) != WeightsSize || hex.EncodeToString(sum[:]) != WeightsSHA256 {
			t.Errorf("%s: %d bytes, sha256 %x; weights_sum.go says %d bytes, sha256 %s (run go generate ./internal/embed, which writes both)",
				name, len(b), sum, WeightsSize, WeightsSHA256)
		}
	}
}

func readRepoBlob(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("model", WeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadWeights checks that only the exact file is accepted, and that
// every refusal names the file, what is wrong and what to do.
func TestReadWeights(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.bin", useLiteBlob)
	data, err := readWeights(good, "test")
	if err != nil || !slices.Equal(data, useLiteBlob) {
		t.Fatalf("good file: %v", err)
	}
	if data, err := verifyWeights(good, "test", false); err != nil || data != nil {
		t.Fatalf("good file, not kept: %v (%d bytes)", err, len(data))
	}

	flipped := slices.Clone(useLiteBlob)
	flipped[len(flipped)/3] ^= 0x10
	longer := append(slices.Clone(useLiteBlob), 0)
	lfs := []byte("version https://git-lfs.github.com/spec/v1\noid sha256:" + WeightsSHA256 + "\nsize 14117184\n")
	cases := []struct {
		name, path, want, fix string
	}{
		{"missing", filepath.Join(dir, "nothing", WeightsFile), "does not exist", "reinstall"},
		{"directory", dir, "not a regular file", "reinstall"},
		{"empty", write("empty.bin", nil), "is 0 bytes, want 14117184", "sha256 " + WeightsSHA256},
		{"truncated", write("short.bin", useLiteBlob[:len(useLiteBlob)-1]), "is 14117183 bytes, want 14117184 (truncated", "damaged"},
		{"longer", write("long.bin", longer), "is 14117185 bytes", "damaged"},
		{"lfs pointer", write("lfs.bin", lfs), "Git LFS pointer", "damaged"},
		{"other weights", write("flipped.bin", flipped), "has SHA-256 ", "another infmem version"},
	}
	for _, c := range cases {
		for _, keep := range []bool{true, false} {
			data, err := verifyWeights(c.path, "how it was chosen", keep)
			var we *WeightsError
			if !errors.As(err, &we) || data != nil {
				t.Errorf("%s (keep %v): got %v, %d bytes; want a *WeightsError", c.name, keep, err, len(data))
				continue
			}
			msg := err.Error()
			for _, want := range []string{c.path + " (how it was chosen) ", c.want, "; hint: ", c.fix, ModelEnv} {
				if !strings.Contains(msg, want) {
					t.Errorf("%s (keep %v): %q lacks %q", c.name, keep, msg, want)
				}
			}
		}
	}
}

func TestWeightsPath(t *testing.T) {
	t.Setenv(ModelEnv, "rel/"+WeightsFile)
	path, how, err := WeightsPath()
	wd, _ := os.Getwd()
	if err != nil || path != filepath.Join(wd, "rel", WeightsFile) || !strings.Contains(how, "$"+ModelEnv) {
		t.Errorf("with $%s: %q, %q, %v", ModelEnv, path, how, err)
	}

	t.Setenv(ModelEnv, "")
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	exe, _ = filepath.EvalSymlinks(exe)
	path, how, err = WeightsPath()
	if want := filepath.Join(filepath.Dir(filepath.Dir(exe)), "model", WeightsFile); err != nil || path != want || !strings.Contains(how, exe) {
		t.Errorf("beside the executable: %q (%s), %v; want %q", path, how, err, want)
	}

	// The bundle's layout, reached through a symbolic link to the binary.
	root := t.TempDir()
	bin := filepath.Join(root, "server", "linux", "infmem")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "bin", "infmem")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, link); err != nil {
		if runtime.GOOS == "windows" {
			t.Skip("no symbolic links:", err)
		}
		t.Fatal(err)
	}
	root, _ = filepath.EvalSymlinks(root)
	if got, _ := weightsBeside(link); got != filepath.Join(root, "server", "model", WeightsFile) {
		t.Errorf("through a link: %q", got)
	}
}

// TestNewUSELiteWeightsSource checks that a default build uses its
// embedded weights whatever $INFMEM_MODEL says, and that a build without
// them loads the named file, refuses a wrong one, and computes the same
// vectors from it as from the blob.
func TestNewUSELiteWeightsSource(t *testing.T) {
	bad := filepath.Join(t.TempDir(), WeightsFile)
	if err := os.WriteFile(bad, useLiteBlob[:1000], 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(ModelEnv, bad)
	where, cerr := CheckWeights()
	m, err := NewUSELite()
	if !WeightsExternal() {
		if err != nil || cerr != nil || where != "embedded in the binary" {
			t.Fatalf("default build with $%s set to a bad file: %v; CheckWeights %q, %v", ModelEnv, err, where, cerr)
		}
		return
	}
	var we *WeightsError
	if !errors.As(err, &we) || m != nil || !errors.As(cerr, &we) || !strings.Contains(err.Error(), bad) {
		t.Fatalf("bad file: NewUSELite %v; CheckWeights %v", err, cerr)
	}
	if _, err := New(ModelUSELite); !errors.As(err, &we) {
		t.Errorf("New: %v", err)
	}
	if _, err := NewLazy(func() (Embedder, error) { return New(ModelUSELite) }).Wait(context.Background()); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("Lazy: %v", err)
	}

	good := filepath.Join(t.TempDir(), WeightsFile)
	if err := os.WriteFile(good, useLiteBlob, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(ModelEnv, good)
	if where, err := CheckWeights(); err != nil || !strings.HasPrefix(where, good+" (") {
		t.Fatalf("CheckWeights: %q, %v", where, err)
	}
	m, err = NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := newUSELiteBF16(useLiteBlob, m.kern, asmF16Kernel(), asmF16Kernel12(), useAMX(), useVDP())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, text := range []string{"The cat is called Miso", "What did we discuss about the database migration last week?"} {
		a, err1 := m.Embed(ctx, text)
		b, err2 := ref.Embed(ctx, text)
		if err1 != nil || err2 != nil || !slices.Equal(a, b) {
			t.Errorf("%q: vectors differ from the blob's (%v, %v)", text, err1, err2)
		}
	}
}
