package main

import (
	"archive/zip"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/infmem/infmem/internal/embed"
)

// options are what one run of the builder makes.
type options struct {
	modDir  string
	out     string // the .mcpb file
	targets []target
	version string    // semantic version, without a leading v
	log     io.Writer // go build's output and the builder's summary
}

// bundleFile is one file of the bundle: its path inside the zip and where
// its content comes from.
type bundleFile struct {
	name string
	src  string // a file on disk, or
	data []byte // its content
	exec bool
}

// zipTime is every entry's modification time, so that the same binaries
// make the same bundle.
var zipTime = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// licenseFiles are shipped beside the binaries: the sentence encoder's
// weights are Apache-2.0, whose NOTICE must travel with them.
var licenseFiles = []struct{ name, src string }{
	{"licenses/use-lite/LICENSE", "internal/embed/model/LICENSE"},
	{"licenses/use-lite/NOTICE", "internal/embed/model/NOTICE"},
}

// weightsSrc is the weight file in the repository, shipped as modelEntry.
var weightsSrc = filepath.Join("internal", "embed", "model", embed.WeightsFile)

// checkWeights refuses to ship a weight file other than the one the
// binaries are built to accept (embed.WeightsSize and WeightsSHA256): a
// Git LFS pointer, a stale or regenerated file.
func checkWeights(file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); n != embed.WeightsSize || sum != embed.WeightsSHA256 {
		return fmt.Errorf("%s is %d bytes with sha256 %s, but infmem is built to load %d bytes with sha256 %s: "+
			"fetch the real file (is it a Git LFS pointer?) or regenerate it and weights_sum.go with go generate ./internal/embed",
			file, n, sum, embed.WeightsSize, embed.WeightsSHA256)
	}
	return nil
}

// build cross-compiles infmem for every target, combines the macOS ones
// into a universal binary, and writes the bundle: manifest.json, the
// binaries under server/<platform>/, built without embedded weights, the
// one copy of the weights they load (server/model/use-lite.bin), the
// model's licence files.
func build(ctx context.Context, o options) (manifest, error) {
	tmpl, err := readTemplate(filepath.Join(o.modDir, templatePath))
	if err != nil {
		return manifest{}, err
	}
	plats, err := platforms(o.targets)
	if err != nil {
		return manifest{}, err
	}
	tmp, err := os.MkdirTemp("", "infmem-mcpb")
	if err != nil {
		return manifest{}, err
	}
	defer os.RemoveAll(tmp)

	weights := filepath.Join(o.modDir, weightsSrc)
	if err := checkWeights(weights); err != nil {
		return manifest{}, err
	}

	m := buildManifest(tmpl, o.version, plats)
	mj, err := encodeManifest(m)
	if err != nil {
		return m, err
	}
	files := []bundleFile{{name: "manifest.json", data: mj}}
	for _, p := range plats {
		var thin []string
		for _, t := range p.targets {
			out := filepath.Join(tmp, "infmem-"+t.goos+"-"+t.goarch)
			fmt.Fprintf(o.log, "building %s\n", t)
			if err := goBuild(ctx, o.modDir, t, o.version, out, o.log); err != nil {
				return m, err
			}
			thin = append(thin, out)
		}
		bin := thin[0]
		if len(thin) > 1 {
			bin = filepath.Join(tmp, "infmem-"+p.name+"-universal")
			if err := writeUniversal(bin, thin); err != nil {
				return m, err
			}
		}
		files = append(files, bundleFile{name: p.entry(), src: bin, exec: true})
	}
	files = append(files, bundleFile{name: modelEntry, src: weights})
	for _, l := range licenseFiles {
		files = append(files, bundleFile{name: l.name, src: filepath.Join(o.modDir, l.src)})
	}
	if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
		return m, err
	}
	if err := writeZip(o.out, files); err != nil {
		return m, err
	}
	return m, summarize(o, files)
}

// writeZip writes files into a new zip at out (through a temporary file, so
// a failed build leaves no half bundle). Executables get mode 0755 in the
// Unix attributes, which MCP Bundle clients restore when they unpack.
func writeZip(out string, files []bundleFile) (err error) {
	f, err := os.CreateTemp(filepath.Dir(out), ".infmem-mcpb-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	zw := zip.NewWriter(f)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	for _, bf := range files {
		h := &zip.FileHeader{Name: bf.name, Method: zip.Deflate, Modified: zipTime}
		h.SetMode(0o644)
		if bf.exec {
			h.SetMode(0o755)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if bf.src == "" {
			_, err = w.Write(bf.data)
		} else {
			err = copyFile(w, bf.src)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", bf.name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), out)
}

func copyFile(w io.Writer, src string) error {
	r, err := os.Open(src)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = io.Copy(w, r)
	return err
}

// summarize prints the size of each binary and of the weights, and the
// bundle's size and SHA-256.
func summarize(o options, files []bundleFile) error {
	for _, bf := range files {
		if !bf.exec && bf.name != modelEntry {
			continue
		}
		fi, err := os.Stat(bf.src)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.log, "%-28s %6.1f MB\n", bf.name, float64(fi.Size())/1e6)
	}
	b, err := os.Open(o.out)
	if err != nil {
		return err
	}
	defer b.Close()
	h := sha256.New()
	n, err := io.Copy(h, b)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.log, "%s: %.1f MB, sha256 %s\n", o.out, float64(n)/1e6, hex.EncodeToString(h.Sum(nil)))
	return nil
}
