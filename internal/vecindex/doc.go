// Package vecindex owns the in-memory vector index of the memory engine: every
// live memory's embedding, quantised to int8, scanned exactly (no
// approximate-neighbour graph) for the documents most similar by cosine to a
// query, after the caller's pre-filter (scope, tags, time range, flags).
//
// The index knows nothing of memories or storage: the memory engine maps its
// memories to dense slot numbers (the same DocIDs its keyword index uses),
// calls Put on every write and Remove on every delete, and keeps the float
// vectors in the database, from which it refills the index at start-up.
//
// # Quantisation
//
// A stored vector is normalised to unit length and quantised symmetrically
// with one scale per vector: code = round(x·127/max|x|), so the largest
// component maps to ±127 and every code is in [-127, 127]. A query is
// normalised and quantised the same way to int16 (±32767 at dimension 512),
// fine enough that its own rounding adds nothing measurable. A score is the
// integer dot product of the codes times both scales. The per-vector scale
// needs no training and no refitting as the collection changes, and a
// replaced vector is re-encoded exactly as it would be in a fresh index; a
// per-dimension scale would adapt to anisotropic embeddings but must be
// fitted to the data and every stored vector re-encoded whenever it moves.
// Measured error against exact float32 cosine: see BENCHMARKS.md.
//
// # Layout and search
//
// Codes live in blocks of 1024 slots (512 KiB at dimension 512), each with
// the slots' scales and a bitmap of live slots, so the arena grows without
// ever copying what it holds and frees a block whose slots are all removed.
// A search walks the blocks, collects the allowed live slots of each into a
// list and hands the list to a dot-product kernel: AVX2 assembly on amd64
// (VPMOVSXBW to widen sixteen doc codes, VPMADDWD against the int16 query),
// portable Go elsewhere and under the purego build tag. Large scans are split
// over GOMAXPROCS goroutines, each keeping its own top k.
package vecindex
