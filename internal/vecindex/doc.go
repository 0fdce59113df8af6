// Package vecindex owns the in-memory vector index of the memory engine: every
// live memory's embedding, quantised to int8, scanned (no approximate-neighbour
// graph) for the documents most similar by cosine to a query, after the
// caller's pre-filter (scope, tags, time range, flags). Large searches first
// rank every candidate by 2-bit codes and score only the best few thousand by
// their int8 codes (coarse.go: approximate, checked on a 100k recall set);
// smaller ones are exact.
//
// The index knows nothing of memories or storage: the memory engine maps its
// memories to dense slot numbers (the same DocIDs its keyword index uses),
// calls Put on every write and Remove on every delete, and keeps the float
// vectors in the database, from which it refills the index at start-up.
//
// # Quantisation
//
// A stored vector is quantised symmetrically with one scale per vector: code =
// round(x·127/max|x|), so the largest component maps to ±127. The scale kept
// is the one that makes the codes a unit vector, so an int8 score is simply
// the cosine of the dequantised vectors. One more bit per component records on
// which side of its code the component lies; the refined value code ± 1/4
// halves the rounding error at 64 bytes per vector (at dimension 512). A
// vector for which the refinement would not lower the total error (sparse
// vectors, whose exact zeros it would move) is stored without it.
//
// A query is quantised the same way to int16 (±32767 up to dimension 516),
// fine enough that its own rounding adds nothing measurable.
//
// The per-vector scale needs no training and no refitting as the collection
// changes, and a replaced vector is encoded exactly as in a fresh index. A
// per-dimension scale would adapt to anisotropic embeddings but has to be
// fitted to the data, and every stored vector re-encoded whenever the fit
// moves; sentence-encoder components are spread evenly enough (the largest
// component of the USE-lite vectors we measured was 0.087, against 0.044
// for the root mean square) that it would gain little.
// Measured error against exact float32 cosine: see BENCHMARKS.md.
//
// # Layout and search
//
// Codes live in blocks of 1024 slots (576 KiB at dimension 512 with the
// refinement bits, 704 KiB with the coarse codes), each with the slots'
// scales and a bitmap of live slots, so the arena grows without ever copying
// what it holds and frees a block whose slots are all removed. A block's
// codes are mapped outside the Go heap where the system allows it
// (blockmem.go), so they do not raise the collector's heap goal; the blocks
// of an index read back share one mapping in huge pages (offheap.Slab), so
// the coarse pass's rerank, which reads rows scattered over every block,
// does not miss the TLB on each. A search walks the blocks, collects the
// allowed live slots of each into a list and hands the list to a dot-product
// kernel: AVX2 assembly on amd64 (VPMOVSXBW widens sixteen codes, VPMADDWD
// multiplies them by the int16 query and adds pairs; the row four slots ahead
// is prefetched, since filtered rows are scattered), or its AVX-512 VNNI
// twin where the CPU has it (VPDPWSSD multiplies and adds thirty-two codes
// into an accumulator in one instruction; the same sums), portable Go
// elsewhere and under the purego build tag. Large exact scans are split over
// GOMAXPROCS goroutines, a coarse pass from coarseParallelMin candidates;
// from coarseShareMin it is shared with the embedding's polling worker
// (internal/cores), and either way keeps the candidates one goroutine
// would (search.go, coarse.go). The int8 scores pick the candidates; each document's int8 and
// refined scores differ by at most a bound computed when it is stored, so
// only documents within twice the largest bound of the k-th best int8 score
// are rescored with the refinement bits (a few dozen per search), and the
// result is exactly the top k by refined score.
package vecindex
