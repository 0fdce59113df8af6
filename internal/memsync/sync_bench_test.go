package memory

import (
	"fmt"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// BenchmarkStoreFeed measures what announcing a store in the change feed
// adds to its latency on the embedded engine:
//
//	go test -run '^$' -bench StoreFeed -benchtime 300x ./internal/memory/
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
			reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
			if err != nil {
				b.Fatal(err)
			}
			opts := Options{Logger: testenv.Logger(b)}
			if on {
				opts.Sync = &SyncOptions{Device: "bench", Poll: time.Hour}
			}
			e := New(store, reg, opts)
			e.Start(ctx)
			defer e.Close(ctx)
			if err := e.wait(ctx); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				if _, err := e.Store(ctx, StoreRequest{Content: fmt.Sprintf("benchmark note number %d about feeds", i)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
