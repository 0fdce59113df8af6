package vecindex

import (
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"unsafe"

	"github.com/infmem/infmem/internal/offheap"
)

// MaxID is the largest document id the index accepts. Ids are dense slot
// numbers, so this is also a bound on the number of documents; it matches
// textindex.MaxDocID so the two indexes can share ids.
const MaxID = 1<<26 - 1

// MaxDim is the largest vector length New accepts. Beyond it the query codes
// that keep the int32 dot product from overflowing would be coarser than the
// stored codes.
const MaxDim = 1 << 16

const (
	blockShift = 10
	blockSize  = 1 << blockShift // slots per block
	blockWords = blockSize / 64  // live-bitmap words per block
)

// block holds blockSize consecutive slots.
type block struct {
	codes  []int8             // blockSize rows of dim codes
	signs  []uint64           // blockSize rows of signWords refinement bits
	coarse []byte             // blockSize rows of 2-bit codes (coarse.go); nil without a coarse kernel
	cw     [blockSize]float32 // coarse weight per slot: level scale times scale
	scales [blockSize]float32 // encoded.scale per slot
	fine   [blockSize]float32 // encoded.fine per slot
	live   [blockWords]uint64 // bitmap of slots holding a vector
	n      int                // live slots
	// delta is at least every live slot's encoded.delta. It only grows
	// (a replaced vector's bound lingers), which keeps it a valid bound.
	delta float32
}

// Index is an in-memory vector index over dense uint32 document ids. All
// methods are safe for concurrent use: searches share a read lock, and Put and
// Remove take it exclusively for the time it takes to copy one vector's codes
// (quantisation happens before the lock is taken).
type Index struct {
	dim       int
	signWords int // refinement-bit words per slot
	qmax      int32
	dots      dotsFunc
	// coarseDots is the coarse pass's kernel, nil where the search is
	// exact throughout; coarseMin is the number of candidates from which
	// it is used, coarseKeep and coarsePerK·k the candidates it keeps at
	// least (coarse.go). Tests move them.
	coarseDots coarseFunc
	coarseMin  int
	coarseKeep int
	coarsePerK int
	// parallelMin is the number of candidates from which an exact scan is
	// split over GOMAXPROCS goroutines, coarseParallelMin the same for a
	// coarse pass; coarseShareMin is the number from which a coarse pass
	// is shared with the process's polling workers (cores.Share); tests
	// and benchmarks move them.
	parallelMin       int
	coarseParallelMin int
	coarseShareMin    int
	bufs              sync.Pool // *scanBuf
	qbufs             sync.Pool // *queryBuf

	mu     sync.RWMutex
	blocks []*block // by id >> blockShift; nil when no slot in it is live
	n      int
}

// newBlock allocates an empty block, its codes and bits outside the heap
// where it can, from slab when it has room (blockmem.go).
func (ix *Index) newBlock(slab *offheap.Slab) *block {
	blk := new(block)
	allocArrays(slab, blk, blockSize*ix.dim, blockSize*ix.signWords, ix.coarseBytes())
	return blk
}

// coarseBytes is the bytes of a block's coarse codes (0 without a coarse
// kernel).
func (ix *Index) coarseBytes() int {
	if ix.coarseDots == nil {
		return 0
	}
	return blockSize * coarseStride(ix.dim)
}

// New returns an empty index of dim-long vectors. It panics if dim is not in
// [1, MaxDim], which is a programming error.
func New(dim int) *Index {
	if dim < 1 || dim > MaxDim {
		panic(fmt.Sprintf("vecindex: dimension %d outside [1, %d]", dim, MaxDim))
	}
	ix := &Index{
		dim: dim, signWords: (dim + 63) / 64, qmax: queryMaxFor(dim),
		dots: asmDots(), parallelMin: asmParallelMin, coarseParallelMin: coarseParallelMin, coarseShareMin: coarseShareMin,
		coarseDots: asmCoarse(), coarseMin: coarseMin, coarseKeep: coarseKeep, coarsePerK: coarsePerK,
	}
	if ix.dots == nil {
		ix.dots, ix.parallelMin = dotsGo, goParallelMin
	}
	return ix
}

// Dim returns the vector length.
func (ix *Index) Dim() int { return ix.dim }

// Len returns the number of documents in the index.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.n
}

// Bytes returns the memory the index holds: the blocks (codes, refinement
// bits, scales and live bitmaps) and the block table, whether on the heap or
// mapped outside it (blockmem.go).
func (ix *Index) Bytes() int64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	b := int64(unsafe.Sizeof(*ix)) + int64(cap(ix.blocks))*int64(unsafe.Sizeof((*block)(nil)))
	for _, blk := range ix.blocks {
		if blk != nil {
			b += int64(unsafe.Sizeof(*blk)) + int64(cap(blk.codes)) + 8*int64(cap(blk.signs)) + int64(cap(blk.coarse))
		}
	}
	return b
}

// Has reports whether id holds a vector.
func (ix *Index) Has(id uint32) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	_, ok := ix.slotLocked(id)
	return ok
}

// slotLocked returns id's block if id is live.
func (ix *Index) slotLocked(id uint32) (*block, bool) {
	b := int(id >> blockShift)
	if b >= len(ix.blocks) || ix.blocks[b] == nil {
		return nil, false
	}
	blk := ix.blocks[b]
	s := id & (blockSize - 1)
	return blk, blk.live[s>>6]&(1<<(s&63)) != 0
}

// Put stores v under id, replacing what id held. v is normalised here, so it
// need not be unit length; a zero vector is stored and scores 0 against every
// query. Put fails, changing nothing, if v has the wrong length or a NaN or
// infinite component, or if id exceeds MaxID.
func (ix *Index) Put(id uint32, v []float32) error {
	if len(v) != ix.dim {
		return fmt.Errorf("vecindex: put %d: vector has %d dimensions, the index %d", id, len(v), ix.dim)
	}
	if id > MaxID {
		return fmt.Errorf("vecindex: put %d: id exceeds %d", id, MaxID)
	}
	e := encoded{codes: make([]int8, ix.dim), signs: make([]uint64, ix.signWords)}
	if err := encode(v, &e); err != nil {
		return fmt.Errorf("vecindex: put %d: %w", id, err)
	}
	b := int(id >> blockShift)
	s := int(id & (blockSize - 1))

	ix.mu.Lock()
	defer ix.mu.Unlock()
	if b >= len(ix.blocks) {
		ix.blocks = append(ix.blocks, make([]*block, b+1-len(ix.blocks))...)
	}
	blk := ix.blocks[b]
	if blk == nil {
		// 576 KiB at dimension 512, zeroed by the allocator while the
		// lock is held; it happens once per 1024 new slots.
		blk = ix.newBlock(nil)
		ix.blocks[b] = blk
	}
	copy(blk.codes[s*ix.dim:(s+1)*ix.dim], e.codes)
	copy(blk.signs[s*ix.signWords:(s+1)*ix.signWords], e.signs)
	blk.scales[s] = e.scale
	blk.fine[s] = e.fine
	ix.setCoarseLocked(blk, s)
	blk.delta = max(blk.delta, e.delta)
	if bit := uint64(1) << (s & 63); blk.live[s>>6]&bit == 0 {
		blk.live[s>>6] |= bit
		blk.n++
		ix.n++
	}
	return nil
}

// Remove deletes id's vector; removing an absent id does nothing.
func (ix *Index) Remove(id uint32) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	blk, ok := ix.slotLocked(id)
	if !ok {
		return
	}
	s := id & (blockSize - 1)
	blk.live[s>>6] &^= 1 << (s & 63)
	blk.n--
	ix.n--
	if blk.n == 0 {
		ix.blocks[id>>blockShift] = nil
		for len(ix.blocks) > 0 && ix.blocks[len(ix.blocks)-1] == nil {
			ix.blocks = ix.blocks[:len(ix.blocks)-1]
		}
	}
}

// Get returns id's stored vector, dequantised: a unit vector within about a
// quarter of a code step (max|x|/127) per component of the normalised vector
// Put was given.
func (ix *Index) Get(id uint32) ([]float32, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	blk, ok := ix.slotLocked(id)
	if !ok {
		return nil, false
	}
	s := int(id & (blockSize - 1))
	codes := blk.codes[s*ix.dim : (s+1)*ix.dim]
	signs := blk.signs[s*ix.signWords : (s+1)*ix.signWords]
	out := make([]float32, ix.dim)
	if fine := blk.fine[s]; fine != 0 {
		for i, c := range codes {
			f := 4*int32(c) - 1
			if signs[i>>6]&(1<<(i&63)) != 0 {
				f += 2
			}
			out[i] = float32(f) * fine
		}
		return out, true
	}
	scale := blk.scales[s]
	for i, c := range codes {
		out[i] = float32(c) * scale
	}
	return out, true
}

// liveFilter returns the set of live ids.
func (ix *Index) liveFilter() *Filter {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	f := &Filter{words: make([]uint64, len(ix.blocks)*blockWords)}
	for b, blk := range ix.blocks {
		if blk != nil {
			copy(f.words[b*blockWords:], blk.live[:])
		}
	}
	return f
}

// candidatesLocked counts the live ids f admits (all live ids if f is nil)
// and returns the largest refinement bound among their blocks.
func (ix *Index) candidatesLocked(f *Filter) (n int, delta float32) {
	for b, blk := range ix.blocks {
		if blk == nil {
			continue
		}
		m := blk.n
		if f != nil {
			m = 0
			for w, live := range blk.live {
				m += bits.OnesCount64(live & f.word(b*blockWords+w))
			}
		}
		if m > 0 {
			n += m
			delta = max(delta, blk.delta)
		}
	}
	return n, delta
}

// workers returns how many goroutines scan for a search with this many
// candidates, given the count from which it is split (parallelMin or
// coarseParallelMin): one below it, then one more per half of it up to
// GOMAXPROCS.
func workers(candidates, splitMin int) int {
	if candidates < splitMin {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), candidates/max(splitMin/2, 1)))
}
