package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// lines are what a terminal shows of the drawn lines: each "\r\033[K"
// starts the line over.
func lines(out string) []string {
	return strings.Split(out, "\r\033[K")[1:]
}

func TestStatusLineShowsElapsedAndStepAndIsErased(t *testing.T) {
	var term bytes.Buffer
	clock := &fakeClock{time.Unix(1000, 0)}
	p := newStatusLine(&term, "test", func() int { return 60 }, clock.now)

	p.show(&mcp.ProgressNotificationParams{Message: "step 1/2 build: make"})
	if term.Len() != 0 {
		t.Fatalf("drawn before the call was long: %q", term.String())
	}
	clock.t = clock.t.Add(3 * time.Second)
	p.show(&mcp.ProgressNotificationParams{Message: "step 2/2 test: 12 passed, 1 failed so far (340 lines, 2s)"})
	clock.t = clock.t.Add(time.Second)
	p.draw() // the ticker's redraw

	got := lines(term.String())
	if len(got) != 2 {
		t.Fatalf("want two draws, got %q", got)
	}
	if !strings.HasPrefix(got[0], "triage test · 3s · step 2/2 test: 12 passed, 1 failed") {
		t.Errorf("status line %q", got[0])
	}
	if !strings.HasPrefix(got[1], "triage test · 4s · ") {
		t.Errorf("redraw %q: the elapsed time did not move", got[1])
	}
	for _, l := range got {
		if n := utf8.RuneCountInString(l); n > 59 || strings.Contains(l, "\n") {
			t.Errorf("line of %d runes for a 60-column terminal (it would wrap): %q", n, l)
		}
	}
	p.done()
	if !strings.HasSuffix(term.String(), "\r\033[K") {
		t.Errorf("the line is not erased at the end: %q", term.String())
	}
	n := term.Len()
	p.draw()
	p.show(&mcp.ProgressNotificationParams{Message: "late"})
	p.done()
	if term.Len() != n {
		t.Errorf("drawn after the end: %q", term.String()[n:])
	}
}

// A call over before the line would show leaves nothing on the terminal.
func TestStatusLineQuickCallDrawsNothing(t *testing.T) {
	var term bytes.Buffer
	clock := &fakeClock{time.Unix(1000, 0)}
	p := newStatusLine(&term, "run", func() int { return 80 }, clock.now)
	p.show(&mcp.ProgressNotificationParams{Message: "running a.out"})
	p.done()
	if term.Len() != 0 {
		t.Errorf("a quick call drew %q", term.String())
	}
}

// A message of several lines is drawn as one.
func TestStatusLineIsOneLine(t *testing.T) {
	var term bytes.Buffer
	clock := &fakeClock{time.Unix(1000, 0)}
	p := newStatusLine(&term, "build", func() int { return 200 }, clock.now)
	clock.t = clock.t.Add(time.Second)
	p.show(&mcp.ProgressNotificationParams{Message: "building\nstep 1"})
	if got := lines(term.String()); len(got) != 1 || got[0] != "triage build · 1s · building step 1" {
		t.Errorf("drawn %q", got)
	}
}

// Into a pipe, a file or a dumb terminal, nothing is drawn: no printer.
func TestNoStatusLineWithoutATerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, out := range map[string]io.Writer{"pipe": w, "file": f, "buffer": &bytes.Buffer{}} {
		if p := newProgressPrinter(out, "test"); p != nil {
			t.Errorf("%s: a status line where there is no terminal", name)
		}
	}
	// A whole call whose stderr is a file writes no escape.
	var stdout bytes.Buffer
	t.Setenv("TRIAGE_STORE", ":memory:")
	code := run(context.Background(), []string{"run", "--program", "sh", "--args=-c", "--args", "sleep 1.2; echo done"}, nil, &stdout, f)
	errs, _ := os.ReadFile(f.Name())
	if code != 0 || !strings.Contains(stdout.String(), "done") {
		t.Fatalf("exit %d:\n%s%s", code, stdout.String(), errs)
	}
	if bytes.ContainsAny(errs, "\r\033") {
		t.Errorf("escapes in a non-terminal stderr: %q", errs)
	}
}

// TestStatusLineSaysNoOutput: once a run's output count has not moved for
// over ten seconds the line says for how long; new output ends it.
func TestStatusLineSaysNoOutput(t *testing.T) {
	var term bytes.Buffer
	clock := &fakeClock{time.Unix(1000, 0)}
	p := newStatusLine(&term, "run", func() int { return 120 }, clock.now)
	p.show(&mcp.ProgressNotificationParams{Message: "running hang"})
	clock.t = clock.t.Add(9 * time.Second)
	p.draw()
	clock.t = clock.t.Add(16 * time.Second)
	p.show(&mcp.ProgressNotificationParams{Message: "running hang: 0 lines, 25s"})
	p.show(&mcp.ProgressNotificationParams{Progress: 3, Message: "running hang: 3 lines, 25s"})
	clock.t = clock.t.Add(2 * time.Second)
	p.draw()
	got := lines(term.String())
	want := []string{"triage run · 9s · running hang", "triage run · 25s · no output for 25s · running hang: 0 lines, 25s",
		"triage run · 25s · running hang: 3 lines, 25s", "triage run · 27s · running hang: 3 lines, 25s"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("status lines\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A tool whose progress is no count of output never says it.
	term.Reset()
	p = newStatusLine(&term, "debug_continue", func() int { return 120 }, clock.now)
	clock.t = clock.t.Add(time.Minute)
	p.draw()
	if strings.Contains(term.String(), "no output") {
		t.Errorf("debug_continue: %q", term.String())
	}
}
