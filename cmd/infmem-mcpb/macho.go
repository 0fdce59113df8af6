package main

import (
	"bytes"
	"debug/macho"
	"encoding/binary"
	"fmt"
	"os"
)

// A universal ("fat") Mach-O file is a big-endian header and one entry per
// architecture, then each architecture's complete Mach-O file at an
// aligned offset. macOS runs the slice for its CPU; each slice keeps its
// own code signature (the Go linker signs darwin binaries ad hoc), so
// nothing in a slice changes.
const (
	fatMagic     = 0xcafebabe
	fatHeaderLen = 8
	fatArchLen   = 20
	// fatAlign is log2 of the slice alignment: 16 KiB, arm64's page size,
	// what lipo uses for arm64 slices.
	fatAlign = 14
)

// writeUniversal combines thin Mach-O executables into one universal file.
func writeUniversal(out string, slices []string) error {
	type slice struct {
		data []byte
		cpu  macho.Cpu
		sub  uint32
	}
	var ss []slice
	for _, p := range slices {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := macho.NewFile(bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for _, s := range ss {
			if s.cpu == f.Cpu {
				return fmt.Errorf("%s: a second %v slice", p, f.Cpu)
			}
		}
		ss = append(ss, slice{b, f.Cpu, f.SubCpu})
	}
	var buf bytes.Buffer
	be := binary.BigEndian
	buf.Write(be.AppendUint32(be.AppendUint32(nil, fatMagic), uint32(len(ss))))
	off := alignUp(fatHeaderLen+fatArchLen*len(ss), 1<<fatAlign)
	offsets := make([]int, len(ss))
	for i, s := range ss {
		offsets[i] = off
		if uint64(off)+uint64(len(s.data)) > 1<<32-1 {
			return fmt.Errorf("universal binary over 4 GiB")
		}
		var e []byte
		e = be.AppendUint32(e, uint32(s.cpu))
		e = be.AppendUint32(e, s.sub)
		e = be.AppendUint32(e, uint32(off))
		e = be.AppendUint32(e, uint32(len(s.data)))
		e = be.AppendUint32(e, fatAlign)
		buf.Write(e)
		off = alignUp(off+len(s.data), 1<<fatAlign)
	}
	for i, s := range ss {
		buf.Write(make([]byte, offsets[i]-buf.Len()))
		buf.Write(s.data)
	}
	// Read it back as macOS would before anything ships.
	ff, err := macho.NewFatFile(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return fmt.Errorf("universal binary does not parse: %w", err)
	}
	ff.Close()
	return os.WriteFile(out, buf.Bytes(), 0o755)
}

func alignUp(n, a int) int { return (n + a - 1) &^ (a - 1) }
