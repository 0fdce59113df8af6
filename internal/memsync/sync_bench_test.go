package memsync

import (
	"fmt"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
)

// BenchmarkStoreFeed measures what announcing a store in the change feed
// adds to its latency on the embedded engine:
//
//	go test -run '^$' -bench StoreFeed -benchtime 300x ./internal/memsync/
func BenchmarkStoreFeed(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("sync=%v", on), func(b *testing.B) {
			ctx := testenv.Context(b)
			o := mongostore.Options{Mode: mongostore.ModeEmbedded, Root: testenv.Root(b), Database: testenv.DBName(b), Logger: testenv.Logger(b)}
			if on {
				o.Device = "bench"
			}
			store, err := mongostore.Open(ctx, o)
			if err != nil {
				b.Fatal(err)
			}
			defer store.Close(ctx)
			var so *Options
			if on {
				so = &Options{Device: "bench", Poll: time.Hour}
			}
			e := startEngine(b, store, memory.Options{}, so)
			waitLoaded(b, e)
			b.ResetTimer()
			for i := range b.N {
				if _, err := e.Store(ctx, memory.StoreRequest{Content: fmt.Sprintf("benchmark note number %d about feeds", i)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
