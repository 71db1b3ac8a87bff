package memcheck

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// helgrind runs a testdata program under helgrind (Options.Tool) and
// returns its result, which must have found an error.
func helgrind(t *testing.T, src string) *Result {
	t.Helper()
	dir, prog := build(t, src)
	r, err := Run(context.Background(), Options{Argv: []string{prog}, Dir: dir, ProjectDir: dir, Tool: ToolHelgrind, KeepExit: true, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(r.Argv, "--tool=helgrind") || slices.Contains(r.Argv, "--leak-check=no") {
		t.Errorf("argv %q", r.Argv)
	}
	if r.Outcome != Found || r.First() == nil {
		t.Fatalf("outcome %v: %s\nstderr: %s", r.Outcome, r.Summary(), r.Stderr)
	}
	return r
}

// A data race is named at the access helgrind caught, with the other
// thread's conflicting access and the variable; which of the two comes
// first is the scheduler's (main's read, as a rule).
func TestHelgrindFindsRace(t *testing.T) {
	needValgrind(t)
	r := helgrind(t, "race.c")
	e := r.First()
	read, write := site(t, "race.c", "access", "main"), site(t, "race.c", "other", "bump")
	words, other := "data race: read of size 4 by thread #1", "this conflicts with a previous write of size 4 by thread #2 at "+write
	if reportAt(e) == write {
		words, other = "data race: write of size 4 by thread #2", "this conflicts with a previous read of size 4 by thread #1 at "+read
	}
	want := "helgrind: " + words + " at "
	if e.Kind != "Race" || !strings.HasPrefix(r.Summary(), want) || !strings.Contains(e.Summary(), other) || !strings.Contains(e.Summary(), `data symbol "counter"`) {
		t.Errorf("kind %q, summary %q; want Race %q… (%s; …\"counter\")", e.Kind, r.Summary(), want, other)
	}
}

// A lock order inversion is named at the lock taken out of order, with
// the two acquisitions that set the order; a program with neither is
// clean in helgrind's words.
func TestHelgrindFindsLockOrder(t *testing.T) {
	needValgrind(t)
	r := helgrind(t, "lock_order.c")
	e := r.First()
	want := "helgrind: lock order violated (a possible deadlock): thread #1: lock order \"0x"
	if e.Kind != "LockOrder" || !strings.HasPrefix(r.Summary(), want) || reportAt(e) != site(t, "lock_order.c", "access", "main") {
		t.Errorf("kind %q at %q, summary %q; want LockOrder %q…", e.Kind, reportAt(e), r.Summary(), want)
	}
	for _, w := range []string{"required order was established by acquisition of lock at 0x", site(t, "lock_order.c", "first", "main"),
		"followed by a later acquisition of lock at 0x", site(t, "lock_order.c", "second", "main")} {
		if !strings.Contains(e.Summary(), w) {
			t.Errorf("summary %q lacks %q", e.Summary(), w)
		}
	}
	dir, prog := build(t, "clean.c")
	clean, err := Run(context.Background(), Options{Argv: []string{prog}, Dir: dir, ProjectDir: dir, Tool: ToolHelgrind, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if clean.Outcome != Clean || !strings.HasPrefix(clean.Summary(), "helgrind: no data race or lock order error seen in 1 run under valgrind; the program exited with status 0") {
		t.Errorf("clean: %v %s", clean.Outcome, clean.Summary())
	}
}
