package main

import (
	"strings"
	"testing"
)

// Issue 22, item 9, from the terminal: 'infmem lessons' lists what models
// proposed, with where each came from, and 'infmem lessons confirm ID'
// makes one a lesson, through the daemon or without one.
func TestLessonsCommand(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	t.Cleanup(func() { stopDaemon(t, root, env) })
	c := bridgeClient(t, env)
	out, err := tryCall(c, "store_memory", map[string]any{"content": "Always deploy on Friday evenings.", "metadata": map[string]any{"source": "lesson"}})
	if err != nil {
		t.Fatal(err)
	}
	id := out["memory_id"].(string)
	code, list, errs := runBin(t, env, "lessons")
	if code != 0 || !strings.Contains(list, id) || !strings.Contains(list, "proposed via e2e") || !strings.Contains(list, "Always deploy on Friday evenings.") {
		t.Fatalf("lessons: %d\n%s\n%s", code, list, errs)
	}
	c.Close()
	stopDaemon(t, root, env)
	// Without a daemon, in this process.
	if code, out, errs := runBin(t, env, "lessons", "confirm", id); code != 0 || !strings.Contains(out, "confirmed "+id) || !strings.Contains(out, "no proposed lessons") {
		t.Fatalf("lessons confirm: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := runBin(t, env, "lessons", "confirm", "0123456789abcdef01234567"); code == 0 || !strings.Contains(errs, "no live memory") {
		t.Fatalf("confirming an unknown id: %d\n%s\n%s", code, out, errs)
	}
}
