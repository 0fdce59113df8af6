package embed

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchQuery is a typical 10-word memory-search question (13 tokens).
const benchQuery = "What did we discuss about the database migration last week?"

// BenchmarkEmbedQuery reports the median and 99th-percentile latency of
// embedding one 10-word question, the figure the search path cares about.
func BenchmarkEmbedQuery(b *testing.B) {
	for _, k := range append(allKernels(), amxKernels()...) {
		if k.name == "go-f16" {
			continue // test-only reference kernel
		}
		b.Run(k.name, func(b *testing.B) {
			m, err := k.model()
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				t0 := time.Now()
				if _, err := m.Embed(ctx, benchQuery); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			reportPercentiles(b, lat)
		})
	}
}

// BenchmarkEmbedBatch32 reports the time per sentence when embedding the
// reference sentences (3 to 239 tokens) and short queries in batches of 32.
func BenchmarkEmbedBatch32(b *testing.B) {
	ctx := context.Background()
	for _, k := range fastKernels() {
		m, err := k.model()
		if err != nil {
			b.Fatal(err)
		}
		for _, set := range []struct {
			name  string
			texts []string
		}{
			{"short", slices.Repeat([]string{benchQuery, "remember that my favourite colour is blue", "Where is the config file?", "What is my favorite programming language?"}, 8)},
			{"mixed", referenceTexts(b, 32)},
		} {
			b.Run(k.name+"/"+set.name, func(b *testing.B) {
				for b.Loop() {
					if _, err := m.EmbedBatch(ctx, set.texts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(set.texts))/1e6, "ms/sentence")
			})
		}
	}
}

// fastKernels lists the fp16 assembly kernel configurations (the ones a
// CPU with F16C uses), or the best one there is.
func fastKernels() []testKernels {
	var ks []testKernels
	for _, k := range allKernels() {
		if strings.HasPrefix(k.name, "asm-f16") {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		ks = append(ks, allKernels()[len(allKernels())-1])
	}
	return append(ks, amxKernels()...)
}

// amxKernels is the bf16 configurations this CPU and system can run: the
// AMX tile unit's and AVX-512 BF16's.
func amxKernels() []testKernels {
	var ks []testKernels
	k := allKernels()[len(allKernels())-1]
	if amxUsable() {
		k.name, k.amx = "amx-bf16", true
		ks = append(ks, k)
		k.amx = false
	}
	if vdpUsable() {
		k.name, k.vdp = "avx512-bf16", true
		ks = append(ks, k)
	}
	return ks
}

// BenchmarkEmbedLength shows how latency grows with token count.
func BenchmarkEmbedLength(b *testing.B) {
	ctx := context.Background()
	for _, k := range fastKernels() {
		m, err := k.model()
		if err != nil {
			b.Fatal(err)
		}
		for _, words := range []int{1, 10, 45, 128} {
			text := ""
			for i := range words {
				text += fmt.Sprintf("word%d ", i%7)
			}
			n := len(m.Tokenize(text))
			b.Run(fmt.Sprintf("%s/words=%d/tokens=%d", k.name, words, min(n, 128)), func(b *testing.B) {
				for b.Loop() {
					if _, err := m.Embed(ctx, text); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkLoad measures NewUSELite and reports the heap it leaves live.
func BenchmarkLoad(b *testing.B) {
	var keep *USELite
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for b.Loop() {
		m, err := NewUSELite()
		if err != nil {
			b.Fatal(err)
		}
		keep = m
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB-heap-live")
	runtime.KeepAlive(keep)
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

func referenceTexts(b *testing.B, n int) []string {
	var out []string
	for len(out) < n {
		for _, c := range loadReference(b) {
			if len(out) < n {
				out = append(out, c.Text)
			}
		}
	}
	return out
}

// TestLoadFootprint measures, once per process, what loading the model
// costs: the time from NewUSELite to the first vector and the process's
// resident memory before and after (Linux). It runs only with
// INFMEM_EMBED_FOOTPRINT=1, alone in its process, so that nothing loaded
// the model before; compare a default build with -tags
// infmem_external_model (weights embedded vs read from the file):
//
//	INFMEM_EMBED_FOOTPRINT=1 go test -count=1 -run LoadFootprint -v ./internal/embed
//	INFMEM_EMBED_FOOTPRINT=1 go test -count=1 -run LoadFootprint -v -tags infmem_external_model ./internal/embed
func TestLoadFootprint(t *testing.T) {
	if os.Getenv("INFMEM_EMBED_FOOTPRINT") == "" {
		t.Skip("set INFMEM_EMBED_FOOTPRINT=1 and run it alone")
	}
	runtime.GC()
	before := procStatus(t)
	t0 := time.Now()
	m, err := NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	loaded := time.Since(t0)
	if _, err := m.Embed(context.Background(), benchQuery); err != nil {
		t.Fatal(err)
	}
	first := time.Since(t0)
	after := procStatus(t)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("weights %s: load %v, first vector %v after NewUSELite was called", WeightsSource(), loaded.Round(100*time.Microsecond), first.Round(100*time.Microsecond))
	t.Logf("VmRSS %s -> %s kB (anon %s -> %s, file %s -> %s); VmHWM %s kB; Go heap live after GC %.1f MiB",
		before["VmRSS"], after["VmRSS"], before["RssAnon"], after["RssAnon"], before["RssFile"], after["RssFile"], after["VmHWM"], float64(ms.HeapAlloc)/(1<<20))
	runtime.KeepAlive(m)
}

// procStatus reads the kB figures of /proc/self/status.
func procStatus(t *testing.T) map[string]string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if f := strings.Fields(v); ok && len(f) == 2 && f[1] == "kB" {
			out[k] = f[0]
		}
	}
	return out
}

// BenchmarkEmbedCold reports the time to embed one stored-memory-sized
// text with the weights in the caches (warm) and after 96 MB of other
// data went through them (cold), as in the daemon, where a store's vector
// scan reads 51 MB at 100k memories between two embeddings.
func BenchmarkEmbedCold(b *testing.B) {
	m, err := NewUSELite()
	if err != nil {
		b.Fatal(err)
	}
	junk := make([]byte, 96<<20)
	ctx := context.Background()
	const text = "remember that the quarterly budget review with Alice moved to Thursday at 3pm in room 4"
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				if cold {
					for i := 0; i < len(junk); i += 64 {
						junk[i]++
					}
				}
				t0 := time.Now()
				if _, err := m.Embed(ctx, text); err != nil {
					b.Fatal(err)
				}
				total += time.Since(t0)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/embed")
		})
	}
}
