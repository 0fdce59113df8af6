package backup

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/mongostore"
)

// Backup and restore benchmarks on the embedded engine. Each memory comes
// with a 512-d f16 embedding in MemoryIndex, as with the default embedder.
// 100k memories take minutes to load, so that size runs only when
// INFMEM_BENCH_100K=1. Peak RSS is measured per operation by resetting the
// kernel's high-water mark (Linux only). cpu-s/op is the process's CPU
// time (the embedded engine included): on a machine shared with other
// work it shows what the operation costs apart from waiting for a core.
//
//	go test -run '^$' -bench . -benchtime 1x ./backup/
func benchSizes() []int {
	sizes := []int{10_000}
	if os.Getenv("INFMEM_BENCH_100K") == "1" {
		sizes = append(sizes, 100_000)
	}
	return sizes
}

func BenchmarkBackup(b *testing.B) {
	for _, n := range benchSizes() {
		env := openTestStore(b)
		t0 := time.Now()
		populate(b, env.store, n)
		b.Logf("loaded %d memories in %v", n, time.Since(t0))
		for _, enc := range []string{"plain", "x25519"} {
			b.Run(strconv.Itoa(n/1000)+"k/"+enc, func(b *testing.B) {
				opts := Options{Dir: b.TempDir()}
				if enc == "x25519" {
					opts.Encryption = Encryption{Recipients: []string{benchRecipient(b)}}
				}
				var res *Result
				resetPeakRSS()
				cpu := cpuSeconds()
				for b.Loop() {
					var err error
					if res, err = Create(context.Background(), env.store, opts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
				b.ReportMetric(float64(res.Manifest.Size)/(1<<20), "file-MB")
				b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
			})
		}
	}
}

func BenchmarkRestore(b *testing.B) {
	for _, n := range benchSizes() {
		env := openTestStore(b)
		populate(b, env.store, n)
		for _, enc := range []string{"plain", "x25519"} {
			b.Run(strconv.Itoa(n/1000)+"k/"+enc, func(b *testing.B) {
				opts := Options{Dir: b.TempDir()}
				keys := Keys{}
				if enc == "x25519" {
					dir := b.TempDir()
					rcpt, err := GenerateIdentity(dir+"/id.txt", time.Now())
					if err != nil {
						b.Fatal(err)
					}
					opts.Encryption = Encryption{Recipients: []string{rcpt}}
					if keys, err = ReadIdentityFile(dir + "/id.txt"); err != nil {
						b.Fatal(err)
					}
				}
				res, err := Create(context.Background(), env.store, opts)
				if err != nil {
					b.Fatal(err)
				}
				resetPeakRSS()
				cpu := cpuSeconds()
				for b.Loop() {
					if _, err := Restore(context.Background(), env.store, res.Path, RestoreOptions{Keys: keys, RunDir: env.root.RunDir()}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
				b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
				n, err := env.store.Memories.EstimatedCount(context.Background())
				if err != nil || n != res.Manifest.Collections[mongostore.ConversationHistory] {
					b.Fatalf("after restore: %d memories, %v", n, err)
				}
			})
		}
	}
}

func benchRecipient(b *testing.B) string {
	r, err := GenerateIdentity(b.TempDir()+"/id.txt", time.Now())
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// resetPeakRSS resets the process's VmHWM (Linux 4.0+; elsewhere a no-op).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSSMB reads VmHWM, or 0 where there is no /proc.
func peakRSSMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}
