//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/mongostore"
)

var (
	faultBinOnce sync.Once
	faultBinPath string
	faultBinErr  error
)

// faultpointBinary builds infmem with -tags faultpoints (package
// faultpoint): it kills itself with SIGKILL at the point INFMEM_FAULTPOINT
// names. Built once per test run, beside the ordinary binary.
func faultpointBinary(t *testing.T) string {
	t.Helper()
	infmemBinary(t) // binDir, removed by TestMain
	faultBinOnce.Do(func() {
		faultBinPath = filepath.Join(binDir, "infmem-faultpoints")
		args := []string{"build", "-tags", "faultpoints", "-o", faultBinPath}
		if raceEnabled {
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			faultBinErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if faultBinErr != nil {
		t.Fatalf("build infmem -tags faultpoints: %v", faultBinErr)
	}
	return faultBinPath
}

// diaryLines are one session's facts: its summary is longer than the
// 256-byte memories of the test's config, so it is stored in parts.
var diaryLines = []string{
	"The blue kayak is stored in the garage of the Oak Street house.",
	"Martin borrowed the ladder on Saturday and will return it in May.",
	"The water heater was serviced by Hanna from Nordlicht Plumbing.",
	"Our wifi password changed to the name of the first cat plus 1987.",
	"The piano tuner comes every second Thursday at 4 pm.",
	"Aunt Greta's birthday dinner is booked at Trattoria Sole for 8 people.",
	"The spare car key hangs behind the calendar in the pantry.",
	"Jonas switched his football practice to Wednesday evenings.",
	"The roof insurance policy number is RX-4471 with Alpine Mutual.",
	"We agreed to paint the hallway olive green next spring.",
}

// writeDiaryExport writes a ChatGPT export of one 2023 conversation of
// lines.
func writeDiaryExport(t *testing.T, path string, lines []string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, `[{"title": "house notes", "conversation_id": "house-notes", "current_node": "m%d", "mapping": {`, len(lines)-1)
	for i, l := range lines {
		parent := "null"
		if i > 0 {
			parent = fmt.Sprintf(`"m%d"`, i-1)
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"m%d": {"id": "m%d", "parent": %s, "children": [], "message": {"id": "msg-%d", "author": {"role": "user"}, "create_time": %d,
			"content": {"content_type": "text", "parts": [%q]}, "recipient": "all"}}`, i, i, parent, i, 1700000000+i*60, l)
	}
	b.WriteString("}}]\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// dbConversation reads, with no daemon running, the messages of the one
// conversation on root (id -> archived) and its live summaries in order.
func dbConversation(t *testing.T, root string) (conv string, msgs map[string]bool, sums []mongostore.Summary) {
	t.Helper()
	msgs = map[string]bool{}
	withStore(t, root, func(s *mongostore.Store) {
		ctx := context.Background()
		err := s.Memories.Iterate(ctx, 1000, func(batch []mongostore.Memory) error {
			for _, m := range batch {
				if m.ConversationID != "" && m.ForgottenAt == nil {
					conv = m.ConversationID
					msgs[m.ID.Hex()] = m.Archived
				}
			}
			return nil
		})
		if err == nil {
			err = s.Summaries.Iterate(ctx, 1000, func(batch []mongostore.Summary) error {
				for _, m := range batch {
					if m.ForgottenAt == nil {
						sums = append(sums, m)
					}
				}
				return nil
			})
		}
		if err != nil {
			t.Fatal(err)
		}
	})
	slices.SortFunc(sums, func(a, b mongostore.Summary) int { return a.Part - b.Part })
	return conv, msgs, sums
}

// The fault matrix's crash between the parts of a summary: the summarize
// job stores a long conversation's summary in parts; the process is killed
// (SIGKILL, at a fault point) after the first part is stored. The next
// pass must store the summary whole, drop the unfinished part, and only
// then archive the messages: never take the conversation as summarized
// behind part of its summary.
func TestFaultCrashBetweenSummaryParts(t *testing.T) {
	faultpointBinary(t) // both binaries built before the first timed command
	root, env := faultRoot(t, `{"logging": {"level": "debug"}, "embedding": {"model": "hash"}, "memory": {"max_content_bytes": 256}}`)
	export := filepath.Join(t.TempDir(), "conversations.json")
	writeDiaryExport(t, export, diaryLines)
	if code, out, errs := runBin(t, env, "import", export); code != 0 {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	stopDaemon(t, root, env)

	// The job in this process (no daemon runs), killed after part 1.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, faultpointBinary(t), "maintain", "--job", "summarize")
	cmd.Env = append(slices.Clone(env), "INFMEM_FAULTPOINT=summary-part:1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("maintain with a crash after the first summary part: %v\n%s\n%s", err, out.String(), errb.String())
	}
	conv, msgs, sums := dbConversation(t, root)
	if len(msgs) != len(diaryLines) {
		t.Fatalf("%d messages of %q; want %d", len(msgs), conv, len(diaryLines))
	}
	if len(sums) != 1 || sums[0].Part != 1 || sums[0].Parts < 2 || sums[0].Whole == "" {
		t.Fatalf("after the crash: %d summaries (%+v); want part 1 of a summary in parts", len(sums), sums)
	}
	cut := sums[0].ID
	for id, archived := range msgs {
		if archived {
			t.Fatalf("message %s archived before its summary was stored", id)
		}
	}

	// The next pass.
	if code, out, errs := runBin(t, env, "maintain", "--job", "summarize", "--json"); code != 0 {
		t.Fatalf("maintain after the crash: %d %s %s", code, out, errs)
	}
	_, msgs, sums = dbConversation(t, root)
	var text strings.Builder
	for i, s := range sums {
		if s.ID == cut {
			t.Fatalf("the unfinished part %s is still there: %+v", cut.Hex(), sums)
		}
		if s.Whole == "" || s.Whole != sums[0].Whole || s.Part != i+1 || s.Parts != len(sums) || s.ConversationID != conv {
			t.Fatalf("summary %d of %d is not part %d of one whole summary: %+v", i+1, len(sums), i+1, sums)
		}
		if refs := hexes(s.MessageRefs); !slices.Equal(refs, sortedKeys(msgs)) {
			t.Fatalf("part %d condenses %v; want every message %v", s.Part, refs, sortedKeys(msgs))
		}
		text.WriteString(s.SummaryText + "\n")
	}
	if len(sums) < 2 {
		t.Fatalf("%d summaries after the next pass; want a summary in parts", len(sums))
	}
	for _, fact := range []string{"RX-4471", "Trattoria Sole", "olive green", "Nordlicht Plumbing", "Oak Street"} {
		if !strings.Contains(text.String(), fact) {
			t.Fatalf("the summary lost %q:\n%s", fact, text.String())
		}
	}
	for id, archived := range msgs {
		if !archived {
			t.Fatalf("message %s not archived behind the whole summary", id)
		}
	}
	// The next start is clean.
	if code, _, errs := runBin(t, env, "start"); code != 0 {
		t.Fatalf("start: %d %s", code, errs)
	}
	statusAndDoctorClean(t, env)
}

func hexes(ids []bson.ObjectID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.Hex()
	}
	slices.Sort(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
