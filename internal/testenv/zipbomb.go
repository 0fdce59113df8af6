package testenv

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"os"
)

// WriteZipBomb writes at path a data-export zip whose conversations.json
// inflates to about mib MiB from about mib KiB: a ChatGPT conversation
// whose one field is mib MiB of spaces (the hostile input of issue 22).
// The compressed stream is one block of 1 MiB of spaces, compressed once
// and repeated, so writing it costs nothing like inflating it.
func WriteZipBomb(path string, mib int) error {
	head := []byte(`[{"title": "bomb", "conversation_id": "bomb", "current_node": "", "mapping": {}, "pad": "`)
	tail := []byte(`"}]` + "\n")
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	block := func(data []byte) ([]byte, error) {
		var b bytes.Buffer
		w, err := flate.NewWriter(&b, flate.BestCompression)
		if err != nil {
			return nil, err
		}
		w.Write(data)
		// A sync flush ends the block on a byte boundary, not final: the
		// same bytes can follow themselves.
		if err := w.Flush(); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	hb, err := block(head)
	if err != nil {
		return err
	}
	cb, err := block(chunk)
	if err != nil {
		return err
	}
	tb, err := block(tail)
	if err != nil {
		return err
	}
	var final bytes.Buffer
	fw, _ := flate.NewWriter(&final, flate.BestCompression)
	fw.Close() // the final, empty block
	crc := crc32.Update(0, crc32.IEEETable, head)
	for range mib {
		crc = crc32.Update(crc, crc32.IEEETable, chunk)
	}
	crc = crc32.Update(crc, crc32.IEEETable, tail)

	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	hdr := &zip.FileHeader{Name: "conversations.json", Method: zip.Deflate, CRC32: crc,
		CompressedSize64:   uint64(len(hb) + mib*len(cb) + len(tb) + final.Len()),
		UncompressedSize64: uint64(len(head) + mib*len(chunk) + len(tail))}
	w, err := zw.CreateRaw(hdr)
	if err == nil {
		w.Write(hb)
		for range mib {
			w.Write(cb)
		}
		w.Write(tb)
		_, err = w.Write(final.Bytes())
	}
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
