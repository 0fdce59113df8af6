package mongostore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// rawDocs reads every document of collection through the raw SQLite path.
func rawDocs(t *testing.T, s *Store, collection string) map[string]bson.Raw {
	t.Helper()
	out := map[string]bson.Raw{}
	err := s.raw.iterate(ctxT(t), collection, func(doc bson.Raw) error {
		out[doc.Lookup("_id").String()] = bytes.Clone(doc)
		return nil
	})
	if err != nil {
		t.Fatalf("raw read of %s: %v", collection, err)
	}
	return out
}

// driverDocs reads every document of collection through FerretDB.
func driverDocs(t *testing.T, s *Store, collection string) map[string]bson.Raw {
	t.Helper()
	cur, err := s.db.Collection(collection).Find(ctxT(t), bson.D{}, options.Find())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bson.Raw{}
	for cur.Next(ctxT(t)) {
		out[cur.Current.Lookup("_id").String()] = bytes.Clone(cur.Current)
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRawScanMatchesDriver stores documents with every value type FerretDB
// keeps (and infmem's own documents) and checks that reading SQLite
// directly gives, byte for byte, the BSON the driver gets from FerretDB.
func TestRawScanMatchesDriver(t *testing.T) {
	s := openTestStore(t, Options{Mode: ModeEmbedded})
	ctx := ctxT(t)
	when := time.Date(2025, 3, 4, 5, 6, 7, 891_000_000, time.UTC)
	odd := []string{"", "plain", `quote " backslash \ slash /`, "tab\tnewline\nreturn\r", "\x01\x1f control",
		"<html> & 'amp'", "é ü 中文 🎉 \u2028\u2029", strings.Repeat("long ", 3000), "\ufffd replacement"}
	coll := "rawscan_types"
	var docs []any
	for i, str := range odd {
		docs = append(docs, bson.D{
			{Key: "_id", Value: bson.NewObjectID()},
			{Key: "s", Value: str},
			{Key: "i32", Value: int32(-i * 1000)},
			{Key: "i64", Value: int64(math.MaxInt64 - int64(i))},
			{Key: "f", Value: []float64{0.1, -2.5e-300, 1e300, 0, 123456789.125, math.Copysign(0, -1), float64(i) / 3}[i%7]},
			{Key: "b", Value: i%2 == 0},
			{Key: "t", Value: when.Add(time.Duration(i) * time.Hour)},
			{Key: "old", Value: time.Date(1901, 1, 1, 0, 0, 0, 0, time.UTC)},
			{Key: "n", Value: nil},
			{Key: "bin", Value: bson.Binary{Subtype: 0, Data: bytes.Repeat([]byte{byte(i), 0xff, 0}, i*100)}},
			{Key: "uuid", Value: bson.Binary{Subtype: 4, Data: bytes.Repeat([]byte{7}, 16)}},
			{Key: "oid", Value: bson.NewObjectID()},
			{Key: "ts", Value: bson.Timestamp{T: uint32(1700000000 + i), I: uint32(i)}},
			{Key: "re", Value: bson.Regex{Pattern: `^a\.b` + str[:min(len(str), 5)], Options: "i"}},
			{Key: "arr", Value: bson.A{"x", int32(1), 2.5, nil, bson.D{{Key: "k", Value: "v"}, {Key: "inner", Value: bson.A{true, "y"}}}}},
			{Key: "empty", Value: bson.A{}},
			{Key: "obj", Value: bson.D{{Key: "a", Value: bson.D{{Key: "deep", Value: bson.A{bson.D{}}}}}, {Key: "odd key é", Value: str}}},
			{Key: "eobj", Value: bson.D{}},
		})
	}
	docs = append(docs, bson.D{{Key: "_id", Value: "a string id"}})
	docs = append(docs, bson.D{{Key: "_id", Value: int32(7)}, {Key: "only", Value: "field"}})
	if _, err := s.db.Collection(coll).InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	// And infmem's own documents, as the engine writes them.
	for i := range 50 {
		m := newMemory(fmt.Sprintf("memory %d: \"quoted\" <b> é", i), "work/sub", "tag", "b")
		m.Speaker, m.ConversationID = "user", "c1"
		if i%3 == 0 {
			at := ms(time.Now())
			m.ForgottenAt, m.Archived, m.Pinned = &at, true, true
		}
		if err := s.Memories.Insert(ctx, m); err != nil {
			t.Fatal(err)
		}
		if err := s.Index.Upsert(ctx, m.ID, &IndexEntry{ID: m.ID, SourceID: m.ID, SourceCollection: ConversationHistory, Scope: m.Scope,
			Model: "m", Dim: 4, Embedding: []byte{1, 2, 3, 4, 5, 6, 7, byte(i)}, Encoding: "f16", CreatedAt: m.CreatedAt,
			Metadata: IndexMeta{Timestamp: m.Timestamp, Tags: m.Tags}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []string{coll, ConversationHistory, MemoryIndex, Metadata} {
		// Both raw reads: each row's text in place (iterateInPlace), and
		// copied out by the pool's driver.
		for _, pool := range []bool{false, true} {
			s.raw.noPrepared = pool
			before := s.raw.scansInPlace.Load()
			want, got := driverDocs(t, s, c), rawDocs(t, s, c)
			s.raw.noPrepared = false
			if inPlace := s.raw.scansInPlace.Load() - before; inPlace != map[bool]int64{false: 1, true: 0}[pool] {
				t.Fatalf("%s (pool %v): %d scans read in place", c, pool, inPlace)
			}
			if len(want) == 0 || len(got) != len(want) {
				t.Fatalf("%s (pool %v): raw read %d documents, the driver %d", c, pool, len(got), len(want))
			}
			for id, w := range want {
				if g := got[id]; !bytes.Equal(g, w) {
					t.Errorf("%s %s (pool %v):\nraw    %s\ndriver %s", c, id, pool, g, w)
				}
			}
		}
	}

	// Iterate and EstimatedCount take the raw path and agree with the driver.
	var n int
	err := s.Memories.Iterate(ctx, 7, func(batch []Memory) error {
		n += len(batch)
		return nil
	})
	if err != nil || n != 50 {
		t.Fatalf("Iterate: %d memories, %v", n, err)
	}
	// Vectors reads the same fields of MemoryIndex as Index.
	full := map[bson.ObjectID]IndexVector{}
	err = s.Index.Iterate(ctx, 7, func(batch []IndexEntry) error {
		for _, e := range batch {
			full[e.ID] = IndexVector{ID: e.ID, SourceID: e.SourceID, Model: e.Model, Dim: e.Dim, Embedding: bytes.Clone(e.Embedding), Encoding: e.Encoding}
		}
		return nil
	})
	if err != nil || len(full) != 50 {
		t.Fatalf("Index.Iterate: %d entries, %v", len(full), err)
	}
	n = 0
	err = s.Vectors.Iterate(ctx, 7, func(batch []IndexVector) error {
		for _, v := range batch {
			if w := full[v.ID]; !reflect.DeepEqual(v, w) || v.Model != "m" || len(v.Embedding) != 8 {
				t.Errorf("Vectors read %+v, Index %+v", v, w)
			}
			n++
		}
		return nil
	})
	if err != nil || n != 50 {
		t.Fatalf("Vectors.Iterate: %d entries, %v", n, err)
	}
	if c, err := s.Memories.EstimatedCount(ctx); err != nil || c != 50 {
		t.Fatalf("EstimatedCount: %d, %v", c, err)
	}
	if c, err := s.Summaries.EstimatedCount(ctx); err != nil || c != 0 {
		t.Fatalf("EstimatedCount of an empty collection: %d, %v", c, err)
	}
}

// TestRawScanRejectsDamage: a document that does not convert stops the read
// with an error naming the collection, as FerretDB's own read would.
func TestSJSONRejectsDamage(t *testing.T) {
	var d sjsonDecoder
	good := `{"$s":{"p":{"_id":{"t":"objectId"},"a":{"t":"string"},"n":{"t":"array","i":[{"t":"int"}]}},"$k":["_id","a","n"]},"_id":"0123456789abcdef01234567","a":"x\u00e9\ud83c\udf89","n":[5]}`
	raw, err := d.appendDoc(nil, []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if got := bson.Raw(raw).Lookup("a").StringValue(); got != "xé🎉" {
		t.Fatalf("string %q", got)
	}
	for _, bad := range []string{
		``, `[]`, `{"a":1}`, `{"$s":{"p":{},"$k":[]},"x":1}`,
		strings.Replace(good, `"_id":"0123`, `"_id":"zz23`, 1),
		strings.Replace(good, `"a":"x`, `"b":"x`, 1),
		strings.Replace(good, `[5]`, `[5,6]`, 1),
		strings.Replace(good, `[5]`, `[]`, 1),
		strings.Replace(good, `"n":[5]}`, `"n":[5]`, 1),
		strings.Replace(good, `"t":"int"`, `"t":"decimal"`, 1),
		strings.Replace(good, `"n":[5]`, `"n":["5"]`, 1),
		good[:len(good)-20],
	} {
		if _, err := d.appendDoc(nil, []byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

func TestRawScanOtherEngineFallsBack(t *testing.T) {
	// A store without the raw reader (mongod) reads through the driver; the
	// embedded one without a catalog yet (nothing stored) does too.
	s := openTestStore(t, Options{Mode: ModeEmbedded})
	ctx := ctxT(t)
	if err := s.raw.iterate(ctx, "no_such_collection", func(bson.Raw) error { return nil }); err != errNoRawTable {
		t.Fatalf("unknown collection: %v", err)
	}
	var ids []bson.ObjectID
	for i := range 3 {
		m := newMemory(fmt.Sprint("m", i), "Global")
		ids = append(ids, m.ID)
		if err := s.Memories.Insert(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	driverOnly := s.Memories
	driverOnly.raw = nil
	var got []bson.ObjectID
	if err := driverOnly.Iterate(ctx, 2, func(b []Memory) error {
		for _, m := range b {
			got = append(got, m.ID)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b bson.ObjectID) int { return bytes.Compare(a[:], b[:]) })
	if !slices.Equal(got, ids) {
		t.Fatalf("driver read %v, want %v", got, ids)
	}
	_ = context.Background
}

// TestRawGetMatchesDriver: Get and GetMany by ObjectID read SQLite's _id
// index directly and give what the driver gives; a string _id spelled like
// an ObjectID is not mistaken for one; a missing id is ErrNotFound.
func TestRawGetMatchesDriver(t *testing.T) {
	s := openTestStore(t, Options{Mode: ModeEmbedded})
	ctx := ctxT(t)
	var ids []bson.ObjectID
	for i := range 20 {
		m := newMemory(fmt.Sprintf("memory %d \"q\" é", i), "s", "t")
		m.Speaker = "user"
		if err := s.Memories.Insert(ctx, m); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	impostor := bson.NewObjectID()
	if _, err := s.db.Collection(ConversationHistory).InsertOne(ctx, bson.D{{Key: "_id", Value: impostor.Hex()}, {Key: "text", Value: "string id"}}); err != nil {
		t.Fatal(err)
	}
	driver := s.Memories
	driver.raw = nil
	for _, id := range ids {
		got, err := s.Memories.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want, err := driver.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("raw %+v\ndriver %+v", got, want)
		}
	}
	for _, c := range []Collection[Memory]{s.Memories, driver} {
		if _, err := c.Get(ctx, impostor); !errors.Is(err, ErrNotFound) {
			t.Fatalf("an ObjectID matching a string _id: %v", err)
		}
	}
	ask := append([]bson.ObjectID{impostor, bson.NewObjectID()}, ids[3:9]...)
	for _, c := range []Collection[Memory]{s.Memories, driver} {
		got, err := c.GetMany(ctx, ask)
		if err != nil || len(got) != 6 {
			t.Fatalf("GetMany: %d found, %v", len(got), err)
		}
		for _, id := range ids[3:9] {
			if got[id] == nil || got[id].ID != id {
				t.Fatalf("GetMany lacks %s", id.Hex())
			}
		}
	}
}

// TestRawIterateHandsOverBatches: the raw Iterate scans on a goroutine of
// its own while fn works on the previous batch; every document arrives
// once, in batches fn may keep until it returns, and an error of fn stops
// the scan and is what Iterate returns.
func TestRawIterateHandsOverBatches(t *testing.T) {
	s := openTestStore(t, Options{Mode: ModeEmbedded})
	ctx := ctxT(t)
	want := map[bson.ObjectID]string{}
	var ms []*Memory
	for i := range 95 {
		m := newMemory(fmt.Sprintf("memory number %d", i), "work", "tag")
		want[m.ID] = m.Text
		ms = append(ms, m)
	}
	if err := s.Memories.InsertMany(ctx, ms); err != nil {
		t.Fatal(err)
	}
	if s.raw == nil {
		t.Fatal("the embedded store has no raw reader")
	}
	got := map[bson.ObjectID]string{}
	var sizes []int
	err := s.Memories.Iterate(ctx, 10, func(batch []Memory) error {
		sizes = append(sizes, len(batch))
		// The scan fills the next batch meanwhile: this one must stay as
		// it was handed over until fn returns.
		first := batch[0].Text
		time.Sleep(2 * time.Millisecond)
		if batch[0].Text != first {
			return fmt.Errorf("batch changed under fn: %q became %q", first, batch[0].Text)
		}
		for _, m := range batch {
			if _, dup := got[m.ID]; dup {
				return fmt.Errorf("memory %s handed over twice", m.ID.Hex())
			}
			got[m.ID] = m.Text
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Iterate gave %d memories, want %d", len(got), len(want))
	}
	if !slices.Equal(sizes, []int{10, 10, 10, 10, 10, 10, 10, 10, 10, 5}) {
		t.Fatalf("batch sizes %v", sizes)
	}

	stop := errors.New("enough")
	calls := 0
	err = s.Memories.Iterate(ctx, 10, func(batch []Memory) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 2 {
		t.Fatalf("fn's error: Iterate returned %v after %d calls, want %v after 2", err, calls, stop)
	}
}

// TestPlainRun: the eight-bytes-at-a-time scan for the end of a string's
// plain run stops where a byte-by-byte one does, for every byte value at
// every position of a word and its tail.
func TestPlainRun(t *testing.T) {
	slow := func(b []byte) int {
		i := 0
		for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
			i++
		}
		return i
	}
	base := []byte("abcdefghijklmnopqrstuvwxyz é€🎉 0123456789")
	for n := 0; n <= len(base); n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				b := bytes.Clone(base[:n])
				b[at] = byte(c)
				if got, want := plainRun(b), slow(b); got != want {
					t.Fatalf("plainRun(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}

// TestSJSONSchemasReused: one decoder reading documents of several schemas
// in turn (more than it keeps at hand), and schemas that share a prefix,
// gives each document the BSON a fresh decoder gives it.
func TestSJSONSchemasReused(t *testing.T) {
	docs := []string{
		`{"$s":{"p":{"_id":{"t":"int"},"a":{"t":"string"}},"$k":["_id","a"]},"_id":1,"a":"x"}`,
		`{"$s":{"p":{"_id":{"t":"int"},"a":{"t":"int"}},"$k":["_id","a"]},"_id":2,"a":5}`,
		`{"$s":{"p":{"_id":{"t":"int"},"a":{"t":"string"},"b":{"t":"bool"}},"$k":["_id","a","b"]},"_id":3,"a":"y","b":true}`,
		`{"$s":{"p":{"_id":{"t":"int"}},"$k":["_id"]},"_id":4}`,
		`{"$s":{"p":{"_id":{"t":"int"},"b":{"t":"bool"}},"$k":["_id","b"]},"_id":5,"b":false}`,
		`{"$s":{"p":{"_id":{"t":"int"},"a":{"t":"double"}},"$k":["_id","a"]},"_id":6,"a":2.5}`,
		`{ "$s" : {"p":{"_id":{"t":"int"},"a":{"t":"string"}},"$k":["_id","a"]} , "_id":7,"a":"z"}`,
	}
	var d sjsonDecoder
	for round := range 3 {
		for i, doc := range docs {
			var fresh sjsonDecoder
			want, err := fresh.appendDoc(nil, []byte(doc))
			if err != nil {
				t.Fatalf("%d: %v", i, err)
			}
			got, err := d.appendDoc(nil, []byte(doc))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("round %d doc %d: %v\ngot  %v\nwant %v", round, i, err, bson.Raw(got), bson.Raw(want))
			}
		}
	}
	// A document whose values do not fit a schema seen before still fails.
	if _, err := d.appendDoc(nil, []byte(strings.Replace(docs[1], `"a":5`, `"a":"5"`, 1))); err == nil {
		t.Fatal("accepted a string for an int")
	}
}

// TestRawGetFollowsCatalog: reads by _id remember each collection's SQLite
// table, but a table swapped under the name (a restore renames the live
// collection aside and a staged one into its place), dropped, or
// recreated is seen at the next read, which then reads what the catalog
// names: never the documents of a table the collection no longer owns.
func TestRawGetFollowsCatalog(t *testing.T) {
	s := openTestStore(t, Options{Mode: ModeEmbedded})
	ctx := ctxT(t)
	insert := func(coll, text string) bson.ObjectID {
		t.Helper()
		m := newMemory(text, "s")
		if _, err := s.db.Collection(coll).InsertOne(ctx, m); err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	rename := func(from, to string) {
		t.Helper()
		cmd := bson.D{{Key: "renameCollection", Value: s.db.Name() + "." + from}, {Key: "to", Value: s.db.Name() + "." + to}}
		if err := s.Client().Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// texts reads ids of coll through the raw path (errNoRawTable: no table).
	texts := func(coll string, ids ...bson.ObjectID) ([]string, error) {
		var out []string
		err := s.raw.get(ctx, coll, ids, func(raw bson.Raw) error {
			out = append(out, raw.Lookup("text").StringValue())
			return nil
		})
		slices.Sort(out)
		return out, err
	}
	want := func(coll string, ids []bson.ObjectID, w ...string) {
		t.Helper()
		got, err := texts(coll, ids...)
		if err != nil || !slices.Equal(got, w) {
			t.Fatalf("%s: read %q, %v; want %q", coll, got, err, w)
		}
	}
	live1 := insert("Live", "live one")
	staged1 := insert("Staged", "staged one")
	all := []bson.ObjectID{live1, staged1}
	want("Live", all, "live one")
	want("Staged", all, "staged one")

	// The restore's swap: Live aside, Staged into its place. Both tables
	// still exist; Live's remembered one now belongs to Aside.
	rename("Live", "Aside")
	rename("Staged", "Live")
	want("Live", all, "staged one")
	want("Aside", all, "live one")
	if got, err := texts("Staged", all...); !errors.Is(err, errNoRawTable) {
		t.Fatalf("Staged after its rename: read %q, %v; want no table", got, err)
	}

	// Dropped, then made again under the same name.
	if err := s.db.Collection("Live").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := texts("Live", all...); !errors.Is(err, errNoRawTable) {
		t.Fatalf("Live after its drop: read %q, %v; want no table", got, err)
	}
	live2 := insert("Live", "live two")
	want("Live", append(all, live2), "live two")

	// Through the typed API: Get and GetMany see the same.
	s.Memories = Collection[Memory]{c: s.db.Collection("Live"), raw: s.raw}
	if m, err := s.Memories.Get(ctx, live2); err != nil || m.Text != "live two" {
		t.Fatalf("Get: %v, %v", m, err)
	}
	rename("Live", "Gone")
	if _, err := s.Memories.Get(ctx, live2); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after the collection was renamed away: %v", err)
	}
	if got, err := s.Memories.GetMany(ctx, []bson.ObjectID{live2}); err != nil || len(got) != 0 {
		t.Fatalf("GetMany after the collection was renamed away: %v, %v", got, err)
	}
}
