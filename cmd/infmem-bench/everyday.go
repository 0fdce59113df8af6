package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// everydaySet is the built-in everyday set: one person's memories and
// questions asked the way people talk to Claude.
//
//go:embed testdata/everyday.json
var everydaySet []byte

type everyday struct {
	Profile struct {
		Contacts []mongostore.Contact `json:"contacts"`
	} `json:"profile"`
	Memories []struct {
		ID      string `json:"id"`
		Text    string `json:"text"`
		DaysAgo int    `json:"days_ago"`
		Source  string `json:"source"`
	} `json:"memories"`
	Questions []struct {
		Q       string   `json:"q"`
		Answers []string `json:"answers"`
	} `json:"questions"`
	NeverStored []string `json:"never_stored"`
}

// runEveryday stores the set's memories (in the default scope, each dated
// days_ago before now) and asks its questions: hit@1 and hit@3 (an answer
// among the first results), how often an answerable question is told
// nothing relevant, and how often a question about something never stored
// is (the never-stored rate). With --mcp it goes through `infmem mcp`.
func runEveryday(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("everyday", flag.ContinueOnError)
	bin := fs.String("mcp", "", "drive this infmem binary over stdio (`infmem mcp`, default settings) instead of the engine")
	verbose := fs.Bool("v", false, "print every miss")
	bars := fs.Bool("bars", false, "also report what other relevance bars would say, from the best confidences")
	if err := fs.Parse(args); err != nil {
		return err
	}
	raw := everydaySet
	if fs.NArg() == 1 {
		var err error
		if raw, err = os.ReadFile(fs.Arg(0)); err != nil {
			return err
		}
	}
	var set everyday
	if err := json.Unmarshal(raw, &set); err != nil {
		return fmt.Errorf("cannot read the everyday set: %w", err)
	}
	tmp, err := os.MkdirTemp("", "infmem-everyday")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "root")

	var st storer
	var r retriever
	if *bin != "" {
		c, done, err := startMCP(ctx, dir, *bin)
		if err != nil {
			return err
		}
		defer done()
		st, r = mcpStorer{c}, mcpRetriever{c}
	} else {
		eng, done, err := openBenchEngine(ctx, dir)
		if err != nil {
			return err
		}
		defer done()
		st, r = engineStorer{eng}, engineRetriever{eng: eng, mode: memory.ModeHybrid}
	}

	now := time.Now()
	owner := map[string]string{}
	for _, m := range set.Memories {
		meta := map[string]any{"timestamp": now.AddDate(0, 0, -m.DaysAgo).UTC().Format(time.RFC3339)}
		if m.Source != "" {
			meta["source"] = m.Source
		}
		id, err := st.store(ctx, m.Text, meta)
		if err != nil {
			return fmt.Errorf("store %s: %w", m.ID, err)
		}
		owner[id] = m.ID
	}
	var hit1, hit3, weakTop, told int
	var posTop, negTop []float64 // best confidence per question
	top := func(r retrieved) float64 {
		if len(r.confidences) == 0 {
			return 0
		}
		return r.confidences[0]
	}
	for _, q := range set.Questions {
		res, err := r.retrieve(ctx, "", q.Q, 5)
		if err != nil {
			return err
		}
		rank := -1
		for i, id := range res.ids {
			if rank < 0 && slices.Contains(q.Answers, owner[id]) {
				rank = i
			}
		}
		if rank == 0 {
			hit1++
		}
		if rank >= 0 && rank < 3 {
			hit3++
		}
		posTop = append(posTop, top(res))
		if res.nothingRelevant {
			told++
		}
		if rank == 0 && res.nothingRelevant {
			weakTop++
		}
		if *verbose && (rank != 0 || res.nothingRelevant) {
			fmt.Printf("  miss: %q answer rank %d, nothing_relevant %v; got %v %v\n", q.Q, rank, res.nothingRelevant, ids(res.ids, owner), res.confidences)
		}
	}
	neg := 0
	for _, q := range set.NeverStored {
		res, err := r.retrieve(ctx, "", q, 5)
		if err != nil {
			return err
		}
		negTop = append(negTop, top(res))
		if res.nothingRelevant {
			neg++
		} else if *verbose {
			fmt.Printf("  never stored, but answered: %q got %v %v\n", q, ids(res.ids, owner), res.confidences)
		}
	}
	via := "the engine"
	if *bin != "" {
		via = "infmem mcp (retrieve_memory, query and top_k 5)"
	}
	n := float64(len(set.Questions))
	fmt.Printf("everyday set through %s: %d memories, %d questions, %d never stored\n", via, len(set.Memories), len(set.Questions), len(set.NeverStored))
	fmt.Printf("  hit@1 %.1f%%, hit@3 %.1f%%\n", 100*float64(hit1)/n, 100*float64(hit3)/n)
	fmt.Printf("  answerable questions told nothing_relevant: %.1f%% (%.1f%% with the right answer first)\n", 100*float64(told)/n, 100*float64(weakTop)/n)
	fmt.Printf("  never-stored questions told nothing_relevant: %.1f%% (%d of %d)\n", 100*float64(neg)/float64(len(set.NeverStored)), neg, len(set.NeverStored))
	if *bars {
		for _, bar := range []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7} {
			fmt.Printf("  with a bar of %.1f: answerable told nothing relevant %.1f%%, never stored %.1f%%\n",
				bar, 100*share(posTop, func(c float64) bool { return c < bar }), 100*share(negTop, func(c float64) bool { return c < bar }))
		}
	}
	return nil
}

func share(list []float64, pred func(float64) bool) float64 {
	n := 0
	for _, v := range list {
		if pred(v) {
			n++
		}
	}
	return float64(n) / float64(max(len(list), 1))
}

func ids(list []string, owner map[string]string) []string {
	out := make([]string, len(list))
	for i, id := range list {
		out[i] = owner[id]
	}
	return out
}

// storer stores one memory and returns its id.
type storer interface {
	store(ctx context.Context, content string, meta map[string]any) (string, error)
}

type engineStorer struct{ eng *memory.Engine }

func (s engineStorer) store(ctx context.Context, content string, meta map[string]any) (string, error) {
	req := memory.StoreRequest{Content: content}
	if v, ok := meta["timestamp"].(string); ok {
		ts, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return "", err
		}
		req.Timestamp = ts
	}
	req.Scope, _ = meta["scope"].(string)
	req.Source, _ = meta["source"].(string)
	req.ConversationID, _ = meta["conversation_id"].(string)
	req.Speaker, _ = meta["speaker"].(string)
	res, err := s.eng.Store(ctx, req)
	return res.ID, err
}

type mcpStorer struct{ c *client.Client }

func (s mcpStorer) store(ctx context.Context, content string, meta map[string]any) (string, error) {
	res, err := storeWhenReady(ctx, s.c, map[string]any{"content": content, "metadata": meta})
	if err != nil {
		return "", err
	}
	var out struct {
		MemoryID string `json:"memory_id"`
	}
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil || out.MemoryID == "" {
		return "", fmt.Errorf("unexpected answer %s", text(res))
	}
	return out.MemoryID, nil
}

// openBenchEngine opens a memory engine on a new embedded data root at dir.
func openBenchEngine(ctx context.Context, dir string) (*memory.Engine, func(), error) {
	st, err := openBenchStack(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	return st.eng, st.close, nil
}

// benchStack is a memory engine on an embedded data root, with its store
// and embedder.
type benchStack struct {
	eng      *memory.Engine
	store    *mongostore.Store
	embedder embed.Embedder
	close    func()
}

// openBenchStack opens a memory engine, as the daemon does, on a new
// embedded data root at dir.
func openBenchStack(ctx context.Context, dir string) (*benchStack, error) {
	root, err := dataroot.Prepare(dir)
	if err != nil {
		return nil, err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeEmbedded, Root: root, Logger: log})
	if err != nil {
		return nil, err
	}
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		store.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	emb, err := embed.New(benchModel)
	if err != nil {
		store.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	eng, err := newBenchEngine(ctx, store, reg, emb, log)
	if err != nil {
		store.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return &benchStack{eng: eng, store: store, embedder: emb, close: func() {
		eng.Close(context.WithoutCancel(ctx))
		store.Close(context.WithoutCancel(ctx))
	}}, nil
}
