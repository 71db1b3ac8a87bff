package capture_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/store"
)

// openStore opens a store on disk in a fresh directory and returns it with
// the directory of its bodies.
func openStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(dir, "out.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, filepath.Join(dir, "bodies")
}

// BreakBodies makes every later body write of the store fail, as a real
// file-system error: its bodies directory becomes a file.
func breakBodies(t *testing.T, bodies string) {
	t.Helper()
	if err := os.RemoveAll(bodies); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bodies, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCaptureStoresTheWholeOutputAndExcerptsIt(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	c, err := capture.Open(ctx, st, store.Meta{Tool: "run", Argv: []string{"prog"}}, capture.Options{Budget: 1024})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		fmt.Fprintf(c, "line %d\n", i)
	}
	fmt.Fprintf(c, "main.c:3:1: error: expected ';'\nlast line, unterminated")
	res := c.Finish(ctx, store.Final{Status: "failed", VerdictLine: "FAILED"})
	if res.Err != nil || res.Note() != "" {
		t.Fatalf("err %v note %q", res.Err, res.Note())
	}
	if res.ID != c.ID() || res.Lines != 202 || res.Excerpt.TotalLines != 202 || !res.Excerpt.Truncated {
		t.Errorf("result = %+v", res)
	}
	// The important line is shown first, though it came late.
	if !strings.Contains(res.Excerpt.Text, "error: expected ';'") || strings.Contains(res.Excerpt.Text, "line 100\n") {
		t.Errorf("excerpt:\n%s", res.Excerpt.Text)
	}
	p, err := st.Page(ctx, res.ID, 200, 10)
	if err != nil || len(p.Lines) != 2 || p.Lines[1] != "last line, unterminated" {
		t.Fatalf("stored tail %+v, %v", p.Lines, err)
	}
	if info, _ := st.Info(ctx, res.ID); info.VerdictLine != "FAILED" {
		t.Errorf("stored verdict %q", info.VerdictLine)
	}
}

func TestFilteredExcerptComesFromTheFilteredLog(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	c, err := capture.Open(ctx, st, store.Meta{Tool: "build"}, capture.Options{Budget: 4096, Filtered: true})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(c, "$ make\nnoise\nnoise\na.c:1:1: error: bad\n")
	fmt.Fprint(c.Filtered(), "a.c:1:1: error: bad\n")
	res := c.Finish(ctx, store.Final{Status: "failed"})
	if res.Lines != 4 || res.Excerpt.TotalLines != 1 || res.Excerpt.Text != "a.c:1:1: error: bad\n" {
		t.Errorf("result = %+v", res)
	}
	// Without Filtered, the filtered writer is a sink.
	c, err = capture.Open(ctx, st, store.Meta{Tool: "run"}, capture.Options{Budget: 4096})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(c.Filtered(), "dropped\n")
	fmt.Fprint(c, "kept\n")
	if res := c.Finish(ctx, store.Final{}); res.Excerpt.Text != "kept\n" {
		t.Errorf("excerpt %q", res.Excerpt.Text)
	}
}

// TestStoreFailureIsOneOutcome: a store that cannot take the output does not
// stop the excerpt or the count; Finish says what is stored and why not
// the rest, in the words every tool uses.
func TestStoreFailureIsOneOutcome(t *testing.T) {
	ctx := context.Background()
	st, bodies := openStore(t)
	breakBodies(t, bodies) // before Open: the body file is made as the output starts
	c, err := capture.Open(ctx, st, store.Meta{Tool: "run"}, capture.Options{Budget: 4096})
	if err != nil {
		t.Fatal(err)
	}
	out := "one\nSegmentation fault (core dumped)\n"
	if n, err := c.Write([]byte(out)); err != nil || n != len(out) {
		t.Fatalf("write = %d, %v: a capture's writes never fail", n, err)
	}
	res := c.Finish(ctx, store.Final{Status: "crash"})
	if res.Err == nil {
		t.Fatal("no error for an output the store could not take")
	}
	want := fmt.Sprintf("\nOUTPUT NOT STORED WHOLE: only its first 0 lines are in %s: %v\n", res.ID, res.Err)
	if res.Note() != want {
		t.Errorf("note = %q, want %q", res.Note(), want)
	}
	if res.Excerpt.TotalLines != 2 || !strings.Contains(res.Excerpt.Text, "Segmentation fault") {
		t.Errorf("excerpt %+v", res.Excerpt)
	}
	if info, err := st.Info(ctx, res.ID); err != nil || info.Complete {
		t.Errorf("stored entry %+v, %v: want incomplete", info, err)
	}
}

func TestCommitWakesReadersAndFinishEndsTheWait(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	c, err := capture.Open(ctx, st, store.Meta{Tool: "process_start"}, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	changed := c.Commit()
	fmt.Fprint(c, "partial")
	if c.Commit(); isClosed(changed) {
		t.Fatal("a commit that added no complete line woke the readers")
	}
	fmt.Fprint(c, " line\n")
	next := c.Commit()
	if !isClosed(changed) || isClosed(next) {
		t.Fatal("a commit that added a line did not wake the readers")
	}
	if info, _ := st.Info(ctx, c.ID()); info.Lines != 1 {
		t.Errorf("committed lines = %d, want 1", info.Lines)
	}
	c.Finish(ctx, store.Final{})
	if !isClosed(next) || !isClosed(c.Commit()) {
		t.Error("Finish left a reader waiting")
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestProgressCountsLinesAndStopsAtFinish(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	var finished atomic.Bool
	seen := make(chan int64, 100)
	c, err := capture.Open(ctx, st, store.Meta{Tool: "run"}, capture.Options{
		Interval: time.Millisecond,
		Progress: func(p capture.Progress) string {
			if finished.Load() {
				t.Error("progress reported after Finish returned")
			}
			select {
			case seen <- p.Lines:
			default:
			}
			return fmt.Sprintf("%d lines", p.Lines)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(c, "a\nb\nc\n")
	for n := range seen {
		if n == 3 {
			break
		}
	}
	// The line for 3 lines is stored before the next report begins.
	<-seen
	if e, _ := st.Info(ctx, c.ID()); e.Progress != "3 lines" {
		t.Errorf("the stored progress line is %q, want the latest report's", e.Progress)
	}
	c.Finish(ctx, store.Final{})
	finished.Store(true)
	if e, _ := st.Info(ctx, c.ID()); e.Progress != "" {
		t.Errorf("a finished output keeps progress %q", e.Progress)
	}
}

// TestFinishWithKeepsTheAnswer: the answer rendered from Close's result
// is stored with the verdict, and one over the store's bound is cut by
// the structured answers' rule, keeping its shape.
func TestFinishWithKeepsTheAnswer(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	c, err := capture.Open(ctx, st, store.Meta{Tool: "test"}, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(c, "ok\nFAIL TestAdd\nno newline")
	kept := c.Close()
	if kept.Lines != 3 {
		t.Fatalf("Close kept %d lines, want 3", kept.Lines)
	}
	type answer struct {
		Verdict string   `json:"verdict"`
		Lines   int      `json:"total_lines"`
		Cases   []string `json:"cases"`
	}
	a := answer{Verdict: "TESTS FAILED", Lines: kept.Lines}
	for i := range 10000 {
		a.Cases = append(a.Cases, fmt.Sprintf("TestCase%05d passed", i))
	}
	res := c.FinishWith(ctx, store.Final{Status: "failed", VerdictLine: "TESTS FAILED"}, a)
	if res.Err != nil || res.Lines != 3 {
		t.Fatalf("FinishWith: %+v", res)
	}
	raw, err := st.Result(ctx, c.ID())
	if err != nil || len(raw) > store.MaxResultBytes {
		t.Fatalf("stored result: %d bytes, %v", len(raw), err)
	}
	var got struct {
		answer
		Cut []string `json:"_cut"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("stored result %.200s: %v", raw, err)
	}
	if got.Verdict != "TESTS FAILED" || got.Lines != 3 || len(got.Cases) == 0 || got.Cases[0] != "TestCase00000 passed" || len(got.Cut) != 1 {
		t.Errorf("stored result: verdict %q, %d lines, %d cases, cut %q", got.Verdict, got.Lines, len(got.Cases), got.Cut)
	}
	if e, _ := st.Info(ctx, c.ID()); e.VerdictLine != "TESTS FAILED" || e.Status != "failed" {
		t.Errorf("entry = %+v", e)
	}
}

func TestAbortKeepsTheOutputIncomplete(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	c, err := capture.Open(ctx, st, store.Meta{Tool: "run"}, capture.Options{Progress: func(capture.Progress) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	changed := c.Commit()
	c.Abort()
	if info, err := st.Info(ctx, c.ID()); err != nil || info.Complete {
		t.Errorf("aborted entry %+v, %v", info, err)
	}
	if !isClosed(changed) {
		t.Error("Abort left a reader waiting")
	}
}

func TestImportant(t *testing.T) {
	for line, want := range map[string]bool{
		"main.c:3:1: error: expected ';'":  true,
		"Segmentation fault (core dumped)": true,
		"compiling main.c":                 false,
	} {
		if got := capture.Important([]byte(line)); got != want {
			t.Errorf("Important(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestTruncated(t *testing.T) {
	for _, tt := range []struct {
		ex    excerpt.Excerpt
		lines int64
		want  bool
	}{
		{excerpt.Excerpt{TotalLines: 10}, 10, false},
		{excerpt.Excerpt{TotalLines: 10, Truncated: true}, 10, true},
		{excerpt.Excerpt{TotalLines: 3}, 10, true}, // the filter dropped 7 lines
	} {
		if got := (capture.Result{Excerpt: tt.ex}).Truncated(tt.lines); got != tt.want {
			t.Errorf("%+v of %d lines: Truncated = %v, want %v", tt.ex, tt.lines, got, tt.want)
		}
	}
}
