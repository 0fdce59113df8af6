package main

import (
	"bytes"
	"debug/macho"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// thinMachO is the smallest executable Mach-O file debug/macho reads: a
// 64-bit header with no load commands, then some payload.
func thinMachO(cpu macho.Cpu, sub uint32, payload string) []byte {
	le := binary.LittleEndian
	var b []byte
	b = le.AppendUint32(b, macho.Magic64)
	b = le.AppendUint32(b, uint32(cpu))
	b = le.AppendUint32(b, sub)
	b = le.AppendUint32(b, uint32(macho.TypeExec))
	b = le.AppendUint32(b, 0) // ncmds
	b = le.AppendUint32(b, 0) // sizeofcmds
	b = le.AppendUint32(b, 0) // flags
	b = le.AppendUint32(b, 0) // reserved
	return append(b, payload...)
}

func TestWriteUniversal(t *testing.T) {
	dir := t.TempDir()
	arm := thinMachO(macho.CpuArm64, 0, "arm64 slice")
	amd := thinMachO(macho.CpuAmd64, 3, "amd64 slice, a little longer")
	os.WriteFile(filepath.Join(dir, "arm64"), arm, 0o755)
	os.WriteFile(filepath.Join(dir, "amd64"), amd, 0o755)
	out := filepath.Join(dir, "universal")
	if err := writeUniversal(out, []string{filepath.Join(dir, "arm64"), filepath.Join(dir, "amd64")}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := binary.BigEndian.Uint32(b); got != fatMagic {
		t.Fatalf("magic %#x", got)
	}
	ff, err := macho.NewFatFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer ff.Close()
	want := []struct {
		cpu  macho.Cpu
		sub  uint32
		data []byte
	}{{macho.CpuArm64, 0, arm}, {macho.CpuAmd64, 3, amd}}
	if len(ff.Arches) != len(want) {
		t.Fatalf("%d arches", len(ff.Arches))
	}
	for i, a := range ff.Arches {
		w := want[i]
		if a.Cpu != w.cpu || a.SubCpu != w.sub || a.Align != fatAlign || a.Offset%(1<<fatAlign) != 0 {
			t.Errorf("arch %d: %+v", i, a.FatArchHeader)
		}
		if !bytes.Equal(b[a.Offset:a.Offset+a.Size], w.data) {
			t.Errorf("arch %d: slice differs from its input", i)
		}
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v", fi.Mode())
	}
}

func TestWriteUniversalRefuses(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	os.WriteFile(a, thinMachO(macho.CpuArm64, 0, "x"), 0o755)
	if err := writeUniversal(filepath.Join(dir, "u"), []string{a, a}); err == nil {
		t.Error("two arm64 slices: no error")
	}
	notMachO := filepath.Join(dir, "elf")
	os.WriteFile(notMachO, []byte("\x7fELF not a Mach-O file"), 0o755)
	if err := writeUniversal(filepath.Join(dir, "u"), []string{a, notMachO}); err == nil {
		t.Error("an ELF slice: no error")
	}
}

func TestPlatforms(t *testing.T) {
	ps, err := platforms(defaultTargets)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.name+"="+p.entry())
	}
	want := []string{"darwin=server/darwin/infmem", "win32=server/win32/infmem.exe", "linux=server/linux/infmem"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if len(ps[0].targets) != 2 {
		t.Errorf("darwin targets %v", ps[0].targets)
	}
	if _, err := platforms([]target{{"linux", "amd64"}, {"linux", "arm64"}}); err == nil {
		t.Error("two linux binaries: no error")
	}
	if _, err := platforms([]target{{"freebsd", "amd64"}}); err == nil {
		t.Error("freebsd: no error")
	}
	if _, err := parseTargets("darwin"); err == nil {
		t.Error("target without GOARCH: no error")
	}
}
