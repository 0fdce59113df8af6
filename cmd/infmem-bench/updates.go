package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/infmem/infmem/internal/memory"
)

// updatesSet is the built-in set of knowledge updates: an older fact, the
// fact that replaces it, and a question about it.
//
//go:embed testdata/updates.json
var updatesSet []byte

type updatePairs struct {
	Pairs []struct {
		ID   string `json:"id"`
		Kind string `json:"kind"`
		Old  string `json:"old"`
		New  string `json:"new"`
		Q    string `json:"q"`
	} `json:"pairs"`
	Lookalikes []struct {
		First  string `json:"first"`
		Second string `json:"second"`
	} `json:"lookalikes"`
	Background []struct {
		Text    string `json:"text"`
		DaysAgo int    `json:"days_ago"`
	} `json:"background"`
}

// Days before the run at which the set's older and newer facts are stored.
const (
	updateOldDays = 40
	updateNewDays = 3
)

// reportingStorer stores a memory and says which memories the store
// result names as updated by it.
type reportingStorer interface {
	storeReport(ctx context.Context, content string, meta map[string]any) (id string, updates []string, err error)
}

func (s engineStorer) storeReport(ctx context.Context, content string, meta map[string]any) (string, []string, error) {
	req := memory.StoreRequest{Content: content}
	if v, ok := meta["timestamp"].(string); ok {
		ts, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return "", nil, err
		}
		req.Timestamp = ts
	}
	res, err := s.eng.Store(ctx, req)
	if err != nil {
		return "", nil, err
	}
	var ups []string
	for _, u := range res.Updates {
		ups = append(ups, u.ID)
	}
	return res.ID, ups, nil
}

func (s mcpStorer) storeReport(ctx context.Context, content string, meta map[string]any) (string, []string, error) {
	res, err := storeWhenReady(ctx, s.c, map[string]any{"content": content, "metadata": meta})
	if err != nil {
		return "", nil, err
	}
	var out struct {
		MemoryID string `json:"memory_id"`
		Updates  []struct {
			MemoryID string `json:"memory_id"`
		} `json:"updates"`
	}
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil || out.MemoryID == "" {
		return "", nil, fmt.Errorf("unexpected answer %s", text(res))
	}
	var ups []string
	for _, u := range out.Updates {
		ups = append(ups, u.MemoryID)
	}
	return out.MemoryID, ups, nil
}

// runUpdates stores the update set (background, then every older fact 40
// days ago, then every newer one 3 days ago, in the default scope) and
// asks each pair's question as Claude would (retrieve_memory, the query
// alone: top 5): how often the newer fact comes first, how often the
// older ranks above the newer, and how often storing the newer named the
// older among its updates; for the look-alikes (both still true), how
// often storing the second called the first updated.
func runUpdates(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("updates", flag.ContinueOnError)
	bin := fs.String("mcp", "", "drive this infmem binary over stdio (`infmem mcp`, default settings) instead of the engine")
	verbose := fs.Bool("v", false, "print every miss")
	if err := fs.Parse(args); err != nil {
		return err
	}
	raw := updatesSet
	if fs.NArg() == 1 {
		var err error
		if raw, err = os.ReadFile(fs.Arg(0)); err != nil {
			return err
		}
	}
	var set updatePairs
	if err := json.Unmarshal(raw, &set); err != nil {
		return fmt.Errorf("cannot read the update set: %w", err)
	}
	tmp, err := os.MkdirTemp("", "infmem-updates")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "root")

	var st reportingStorer
	var r retriever
	if *bin != "" {
		var c *client.Client
		var done func()
		if c, done, err = startMCP(ctx, dir, *bin); err != nil {
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
	at := func(days int) map[string]any {
		return map[string]any{"timestamp": now.AddDate(0, 0, -days).UTC().Format(time.RFC3339)}
	}
	store := func(text string, days int) (string, []string, error) {
		id, ups, err := st.storeReport(ctx, text, at(days))
		if err != nil {
			return "", nil, fmt.Errorf("store %q: %w", text, err)
		}
		return id, ups, nil
	}
	texts := map[string]string{}
	for _, b := range set.Background {
		id, _, err := store(b.Text, b.DaysAgo)
		if err != nil {
			return err
		}
		texts[id] = b.Text
	}
	oldIDs := make([]string, len(set.Pairs))
	firstIDs := make([]string, len(set.Lookalikes))
	for i, p := range set.Pairs {
		if oldIDs[i], _, err = store(p.Old, updateOldDays); err != nil {
			return err
		}
		texts[oldIDs[i]] = p.Old
	}
	for i, l := range set.Lookalikes {
		if firstIDs[i], _, err = store(l.First, updateOldDays); err != nil {
			return err
		}
		texts[firstIDs[i]] = l.First
	}
	newIDs := make([]string, len(set.Pairs))
	named, falseUpdates := 0, 0
	for i, p := range set.Pairs {
		id, ups, err := store(p.New, updateNewDays)
		if err != nil {
			return err
		}
		newIDs[i] = id
		if slices.Contains(ups, oldIDs[i]) {
			named++
		} else if *verbose {
			var others []string
			for _, u := range ups {
				others = append(others, fmt.Sprintf("%q", texts[u]))
			}
			fmt.Printf("  store did not name the older: %s (%q → %q) named %v\n", p.ID, p.Old, p.New, others)
		}
	}
	for i, l := range set.Lookalikes {
		_, ups, err := store(l.Second, updateNewDays)
		if err != nil {
			return err
		}
		if slices.Contains(ups, firstIDs[i]) {
			falseUpdates++
			if *verbose {
				fmt.Printf("  look-alike called an update: %q → %q\n", l.First, l.Second)
			}
		}
	}
	newFirst, oldAbove, newIn5 := 0, 0, 0
	for i, p := range set.Pairs {
		res, err := r.retrieve(ctx, "", p.Q, 5)
		if err != nil {
			return err
		}
		rn, ro := slices.Index(res.ids, newIDs[i]), slices.Index(res.ids, oldIDs[i])
		if rn == 0 {
			newFirst++
		}
		if rn >= 0 {
			newIn5++
		}
		if ro >= 0 && (rn < 0 || ro < rn) {
			oldAbove++
		}
		if *verbose && rn != 0 {
			fmt.Printf("  %s: %q newer at %d, older at %d (of %d)\n", p.ID, p.Q, rn, ro, len(res.ids))
		}
	}
	via := "the engine"
	if *bin != "" {
		via = "infmem mcp (store_memory with a timestamp; retrieve_memory with the query alone)"
	}
	n, nl := float64(len(set.Pairs)), float64(max(len(set.Lookalikes), 1))
	fmt.Printf("update set through %s: %d pairs, %d look-alikes, %d background memories\n", via, len(set.Pairs), len(set.Lookalikes), len(set.Background))
	fmt.Printf("  newer first %.1f%%, older above newer %.1f%%, newer in top 5 %.1f%%\n", 100*float64(newFirst)/n, 100*float64(oldAbove)/n, 100*float64(newIn5)/n)
	fmt.Printf("  store result names the older %.1f%% (%d of %d); look-alikes called updates %.1f%% (%d of %d)\n",
		100*float64(named)/n, named, len(set.Pairs), 100*float64(falseUpdates)/nl, falseUpdates, len(set.Lookalikes))
	return nil
}
