package embed

import (
	"context"
	"math"
	"slices"
	"testing"
)

func TestHashIsDeterministicAndUnitLength(t *testing.T) {
	ctx := context.Background()
	a, b := NewHash(512), NewHash(512)
	if a.ModelID() != "hash-512-v1" || a.Dim() != 512 {
		t.Fatalf("ModelID %q Dim %d", a.ModelID(), a.Dim())
	}
	for _, s := range []string{"hello world", "Backup the database at 02:30", "Ünïcödé 日本語 text"} {
		v1, _ := a.Embed(ctx, s)
		v2, _ := b.Embed(ctx, s)
		if !slices.Equal(v1, v2) {
			t.Errorf("%q: two instances disagree", s)
		}
		var ss float64
		for _, x := range v1 {
			ss += float64(x) * float64(x)
		}
		if math.Abs(ss-1) > 1e-6 {
			t.Errorf("%q: squared norm %v", s, ss)
		}
	}
	// Pinned value: changing features, weights or hashing must change the
	// model id, because stored vectors would silently stop matching.
	v1, _ := a.Embed(ctx, "nightly database backup")
	v2, _ := a.Embed(ctx, "backups of the database")
	if got := dot(v1, v2); math.Abs(got-0.4058) > 1e-4 {
		t.Errorf("pinned cosine = %.4f, want 0.4058; bump the hash model id if this change is intended", got)
	}
}

func TestHashEmptyAndPunctuationGiveZero(t *testing.T) {
	h := NewHash(64)
	for _, s := range []string{"", "   ", "?!…", "\t\n"} {
		v, _ := h.Embed(context.Background(), s)
		if len(v) != 64 || slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
			t.Errorf("%q: want a 64-long zero vector", s)
		}
	}
}

func TestHashRanksKeywordOverlap(t *testing.T) {
	h := NewHash(512)
	ctx := context.Background()
	vs, err := h.EmbedBatch(ctx, []string{
		"when is the database backup scheduled",
		"The database backup is scheduled nightly at 2am",
		"Backups of the databases run every night",
		"My cat likes tuna and sleeping in the sun",
	})
	if err != nil {
		t.Fatal(err)
	}
	exact, inflected, unrelated := dot(vs[0], vs[1]), dot(vs[0], vs[2]), dot(vs[0], vs[3])
	if !(exact > inflected && inflected > unrelated) {
		t.Errorf("want exact %.3f > inflected %.3f > unrelated %.3f", exact, inflected, unrelated)
	}
	// Case and Unicode compatibility forms do not matter.
	a, _ := h.Embed(ctx, "ＤＡＴＡＢＡＳＥ Backup")
	b, _ := h.Embed(ctx, "database backup")
	if got := dot(a, b); got < 0.9999 {
		t.Errorf("case/width variants have cosine %.4f", got)
	}
}

func TestHashBatchHonoursContext(t *testing.T) {
	ctx := &cancelAfter{Context: context.Background()}
	ctx.n.Store(2)
	if _, err := NewHash(8).EmbedBatch(ctx, []string{"a", "b", "c"}); err == nil {
		t.Error("batch ran past cancellation")
	}
}
