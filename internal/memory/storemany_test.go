package memory

import (
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/testenv"
)

// TestStoreManyAsStore: StoreMany stores what Store would, one request at a
// time, would store: the same index entries (ids aside), the same
// duplicates, the same refusals; and what it stores survives a crash.
func TestStoreManyAsStore(t *testing.T) {
	emb := embed.NewHash(512)
	ctx := testenv.Context(t)
	when := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	imp := 0.8
	reqs := []StoreRequest{
		{Content: "The harbour fee is 40 euros a night", Scope: "Sailing", Tags: []string{"Fees", "#boat"}, Timestamp: when, ConversationID: "c1", Speaker: "user"},
		{Content: "The boat is moored at pier 9", Scope: "Sailing", Timestamp: when.Add(time.Minute), ConversationID: "c1", Speaker: "assistant", Importance: &imp},
		{Content: "  The harbour fee is 40 euros a night ", Scope: "sailing"},              // the first again, in the same scope
		{Content: "The harbour fee is 40 euros a night", Scope: "Travel", Timestamp: when}, // another scope: stored
		{Content: "", Scope: "Sailing"}, // refused
		{Content: "A summary of the sailing trip", Scope: "Sailing", Source: "summary", ConversationID: "c1", Timestamp: when},
		{Content: "already stored before the batch", Scope: "Sailing"},
		{Content: "bad source", Source: "gossip"}, // refused
		{Content: "with its own vector", Scope: "Sailing", Timestamp: when, Vector: must(emb.Embed(ctx, "with its own vector"))},
	}
	digest := func(e *Engine) []string { return digestNoIDs(indexDigest(e)) }
	run := func(many bool) ([]StoreResult, []error, []string, snapEnv) {
		env := snapEnv{t: t, root: testenv.Root(t), emb: emb}
		store, e := env.open()
		mustStore(t, e, StoreRequest{Content: "already stored before the batch", Scope: "Sailing", Timestamp: when})
		var res []StoreResult
		var errs []error
		if many {
			var err error
			if res, errs, err = e.StoreMany(ctx, reqs); err != nil {
				t.Fatal(err)
			}
		} else {
			for _, r := range reqs {
				x, err := e.Store(ctx, r)
				res, errs = append(res, x), append(errs, err)
			}
		}
		d := digest(e)
		crash(store, e)
		if got := fullLoadDigest(t, env.root, emb); !slices.Equal(digestNoIDs(got), d) {
			t.Fatalf("many=%v: the database differs from the index:\n%s", many, diff(d, digestNoIDs(got)))
		}
		return res, errs, d, env
	}
	oneRes, oneErrs, oneDigest, _ := run(false)
	manyRes, manyErrs, manyDigest, _ := run(true)
	if d := diff(oneDigest, manyDigest); d != "" {
		t.Fatalf("StoreMany's index differs from Store's:\n%s", d)
	}
	for i := range reqs {
		if (oneErrs[i] == nil) != (manyErrs[i] == nil) || (oneErrs[i] != nil && oneErrs[i].Error() != manyErrs[i].Error()) {
			t.Errorf("request %d: Store said %v, StoreMany %v", i, oneErrs[i], manyErrs[i])
		}
		if (oneRes[i].DuplicateOf == "") != (manyRes[i].DuplicateOf == "") || oneRes[i].Scope != manyRes[i].Scope || oneRes[i].Collection != manyRes[i].Collection {
			t.Errorf("request %d: Store gave %+v, StoreMany %+v", i, oneRes[i], manyRes[i])
		}
	}
	if manyRes[2].DuplicateOf != manyRes[0].ID {
		t.Errorf("a repeat within the batch is a duplicate of %q, want %q", manyRes[2].DuplicateOf, manyRes[0].ID)
	}
}

// digestNoIDs is an index digest without what differs between two runs:
// ids, and the times a store takes from the clock.
func digestNoIDs(lines []string) []string {
	idRE := regexp.MustCompile(`^[0-9a-f]{24} `)
	nowRE := regexp.MustCompile(`created=\d+`)
	out := make([]string, len(lines))
	for i, l := range lines {
		l = idRE.ReplaceAllString(l, "")
		out[i] = nowRE.ReplaceAllString(l, "created=")
	}
	slices.Sort(out)
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return v
}
