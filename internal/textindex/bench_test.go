package textindex

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// corpus generates seeded synthetic memories: 20-60 words drawn from a Zipf
// (s = 1) distribution over a 50,000-word vocabulary. The stop-word list is
// spread over the 250 most frequent ranks and pseudo-English content words
// (with -s, -ed, -ing, -ly, -tion endings so the stemmer does real work) fill
// the rest, so some content words are very common: the most frequent ones
// occur in about a third of all memories, like a user's own name would.
type corpus struct {
	words   []string
	content []int     // ranks of content words
	cdf     []float64 // cumulative Zipf probabilities over all ranks
	ccdf    []float64 // the same over content ranks only
}

func newCorpus(seed uint64) *corpus {
	const vocabSize = 50000
	rng := rand.New(rand.NewPCG(seed, 1))
	syll := strings.Fields("ba be bi bo bu ca co cu da de di do fa fe fi fo ga ge go ha he hi ho ja jo ka ke ki ko la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo wa we wi za ze zo str tr pl gr br cl")
	ends := []string{"", "", "", "", "s", "ed", "ing", "ly", "tion", "er", "ness", "ment"}
	seen := map[string]bool{}
	stops := make([]string, 0, len(stopWords))
	for w := range stopWords {
		stops = append(stops, w)
	}
	sort.Strings(stops)
	c := &corpus{words: make([]string, vocabSize)}
	stopRank := rng.Perm(250)[:len(stops)]
	for i, r := range stopRank {
		c.words[r] = stops[i]
		seen[stops[i]] = true
	}
	for r := range c.words {
		if c.words[r] != "" {
			continue
		}
		for {
			var sb strings.Builder
			for range 1 + rng.IntN(3) {
				sb.WriteString(syll[rng.IntN(len(syll))])
			}
			sb.WriteString(ends[rng.IntN(len(ends))])
			if w := sb.String(); !seen[w] {
				seen[w] = true
				c.words[r] = w
				break
			}
		}
		c.content = append(c.content, r)
	}
	var sum, csum float64
	for r := range c.words {
		sum += 1 / float64(r+1)
		c.cdf = append(c.cdf, sum)
	}
	for _, r := range c.content {
		csum += 1 / float64(r+1)
		c.ccdf = append(c.ccdf, csum)
	}
	return c
}

func (c *corpus) word(rng *rand.Rand) string {
	i, _ := slices.BinarySearch(c.cdf, rng.Float64()*c.cdf[len(c.cdf)-1])
	return c.words[min(i, len(c.words)-1)]
}

func (c *corpus) contentWord(rng *rand.Rand) string {
	i, _ := slices.BinarySearch(c.ccdf, rng.Float64()*c.ccdf[len(c.ccdf)-1])
	return c.words[c.content[min(i, len(c.content)-1)]]
}

func (c *corpus) text(rng *rand.Rand, minWords, maxWords int, pick func(*rand.Rand) string) string {
	n := minWords + rng.IntN(maxWords-minWords+1)
	w := make([]string, n)
	for i := range w {
		w[i] = pick(rng)
	}
	s := strings.Join(w, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func (c *corpus) docs(n int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([]string, n)
	for i := range out {
		out[i] = c.text(rng, 20, 60, c.word)
	}
	return out
}

// queries returns natural questions (3-8 words from the same distribution,
// so mostly stop words around 1-4 content words) or keyword queries (3-8
// content words, every one of them a scoring term).
func (c *corpus) queries(n int, keywords bool, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 3))
	pick := c.word
	if keywords {
		pick = c.contentWord
	}
	out := make([]string, n)
	for i := range out {
		out[i] = c.text(rng, 3, 8, pick)
	}
	return out
}

var (
	benchCorpus = sync.OnceValue(func() *corpus { return newCorpus(42) })
	benchIndex  = map[int]*Index{}
	benchMu     sync.Mutex
)

func indexOf(b *testing.B, n int) *Index {
	benchMu.Lock()
	defer benchMu.Unlock()
	if ix, ok := benchIndex[n]; ok {
		return ix
	}
	ix := New(DefaultOptions())
	for i, d := range benchCorpus().docs(n, 7) {
		ix.Add(DocID(i), d)
	}
	benchIndex[n] = ix
	return ix
}

// BenchmarkSearch reports mean ns/op plus the median and 99th percentile of
// single searches (p50-ns, p99-ns) for top-10 retrieval, and the process CPU
// time per search (cpu-ns/op), which is what a search costs when it does not
// wait for a core.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, kind := range []struct {
			name     string
			keywords bool
			allow    func(DocID) bool
		}{
			{"natural", false, nil},
			{"keywords", true, nil},
			{"keywords-filter25%", true, func(id DocID) bool { return id%4 == 0 }},
		} {
			b.Run(fmt.Sprintf("docs=%dk/%s", n/1000, kind.name), func(b *testing.B) {
				ix := indexOf(b, n)
				qs := benchCorpus().queries(1000, kind.keywords, 11)
				lat := make([]time.Duration, 0, 1<<16)
				i := 0
				cpu0, cpuOK := processCPU()
				for b.Loop() {
					t0 := time.Now()
					ix.Search(qs[i%len(qs)], 10, kind.allow)
					if len(lat) < cap(lat) {
						lat = append(lat, time.Since(t0))
					}
					i++
				}
				if cpu1, _ := processCPU(); cpuOK {
					b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(i), "cpu-ns/op")
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
				b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
			})
		}
	}
}

func BenchmarkScoreDocs(b *testing.B) {
	ix := indexOf(b, 100_000)
	qs := benchCorpus().queries(1000, true, 12)
	rng := rand.New(rand.NewPCG(1, 1))
	ids := make([]DocID, 100)
	for i := range ids {
		ids[i] = DocID(rng.IntN(100_000))
	}
	i := 0
	for b.Loop() {
		ix.ScoreDocs(qs[i%len(qs)], ids)
		i++
	}
}

// BenchmarkAdd measures indexing throughput into a growing index (one op is
// one memory), including analysis.
func BenchmarkAdd(b *testing.B) {
	docs := benchCorpus().docs(100_000, 8)
	ix := New(DefaultOptions())
	i := 0
	for b.Loop() {
		ix.Add(DocID(i%len(docs)), docs[i%len(docs)])
		i++
	}
}

// BenchmarkReplace measures Add over an existing id at 100k documents: a
// remove plus an insert, the cost of update_memory.
func BenchmarkReplace(b *testing.B) {
	ix := indexOf(b, 100_000)
	docs := benchCorpus().docs(1000, 9)
	rng := rand.New(rand.NewPCG(2, 2))
	i := 0
	for b.Loop() {
		ix.Add(DocID(rng.IntN(100_000)), docs[i%len(docs)])
		i++
	}
}

func BenchmarkTokens(b *testing.B) {
	docs := benchCorpus().docs(1000, 10)
	i := 0
	for b.Loop() {
		Tokens(docs[i%len(docs)])
		i++
	}
}

// BenchmarkMemory builds a 100k-memory index and reports the heap it holds
// per document (bytes/doc) measured with runtime.MemStats.
func BenchmarkMemory(b *testing.B) {
	docs := benchCorpus().docs(100_000, 13)
	for b.Loop() {
		before := heapInUse()
		ix := New(DefaultOptions())
		for i, d := range docs {
			ix.Add(DocID(i), d)
		}
		after := heapInUse()
		st := ix.Stats()
		b.ReportMetric(float64(after-before)/float64(len(docs)), "bytes/doc")
		b.ReportMetric(float64(st.Bytes)/float64(len(docs)), "est-bytes/doc")
		b.ReportMetric(float64(st.Postings)/float64(len(docs)), "postings/doc")
		b.ReportMetric(float64(st.Terms), "terms")
		runtime.KeepAlive(ix)
	}
	runtime.KeepAlive(docs)
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkAnalyzeLongQuery analyses a 40k-word query of distinct words:
// the cost must grow linearly with the text (issue 13: 3.6 s before).
func BenchmarkAnalyzeLongQuery(b *testing.B) {
	var sb strings.Builder
	for i := range 40000 {
		sb.WriteString("zq")
		for n := i; n > 0; n /= 26 {
			sb.WriteByte(byte('a' + n%26))
		}
		sb.WriteByte(' ')
	}
	text := sb.String()
	ix := New(Options{})
	b.ResetTimer()
	for range b.N {
		if q := ix.Analyze(text); len(q.terms) < 30000 {
			b.Fatalf("%d distinct terms", len(q.terms))
		}
	}
}
