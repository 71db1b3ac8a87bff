package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func open(t testing.TB, path string, o Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// numbered writes n lines "line i" in awkward write sizes.
func numbered(t testing.TB, w *Writer, from, n int) {
	t.Helper()
	var b strings.Builder
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("x", i%97))
	}
	data := []byte(b.String())
	for len(data) > 0 {
		k := min(len(data), 1+len(data)%7919)
		if _, err := w.Write(data[:k]); err != nil {
			t.Fatal(err)
		}
		data = data[k:]
	}
}

func TestWritePageAcrossChunks(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", Options{})
	w, err := s.Create(ctx, Meta{Tool: "run", Argv: []string{"./a", "b c"}, Cwd: "/tmp"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 60000 // several chunks
	numbered(t, w, 0, n)
	w.Write([]byte("last line without newline"))
	if err := w.Finish(ctx, Final{Status: "success", VerdictLine: "SUCCEEDED (exit 0)"}); err != nil {
		t.Fatal(err)
	}
	e, err := s.Info(ctx, w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if e.Lines != n+1 || !e.Complete || e.Status != "success" || e.Argv[1] != "b c" {
		t.Fatalf("entry = %+v", e)
	}
	for _, off := range []int{0, 1, 9999, 30000, n - 5} {
		p, err := s.Page(ctx, w.ID(), off, 5)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range p.Lines {
			if want := fmt.Sprintf("line %d ", off+i); !strings.HasPrefix(l, want) {
				t.Fatalf("Page(%d)[%d] = %q, want prefix %q", off, i, l, want)
			}
		}
	}
	p, _ := s.Page(ctx, w.ID(), n, 10)
	if len(p.Lines) != 1 || p.Lines[0] != "last line without newline" || p.More {
		t.Errorf("last page = %+v", p.Lines)
	}
}

func TestBadRequests(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", Options{})
	id, _ := s.Put(ctx, Meta{Tool: "t"}, "a\nb\n", Final{Status: "success"})
	if _, err := s.Page(ctx, "o-nope", 0, 1); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "output_list") {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := s.Page(ctx, id, 5, 1); err == nil || !strings.Contains(err.Error(), "has 2 lines") {
		t.Errorf("offset past end: %v", err)
	}
	if _, err := s.Search(ctx, Query{ID: id, Pattern: "a("}); err == nil || !strings.Contains(err.Error(), "does not compile") {
		t.Errorf("bad regex: %v", err)
	}
	if _, err := s.Search(ctx, Query{ID: "o-nope", Pattern: "a"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("search unknown id: %v", err)
	}
}

func TestSearch(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", Options{})
	w, _ := s.Create(ctx, Meta{Tool: "build"})
	numbered(t, w, 0, 40000)
	w.Finish(ctx, Final{Status: "failure"})
	other, _ := s.Put(ctx, Meta{Tool: "run"}, "ok\nerror: boom\n", Final{Status: "failure"})

	res, err := s.Search(ctx, Query{ID: w.ID(), Pattern: `^line 1\d{3} `, MaxMatches: 3, Context: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1000 || len(res.Matches) != 3 || !res.Truncated {
		t.Fatalf("total %d, kept %d, truncated %v", res.Total, len(res.Matches), res.Truncated)
	}
	// Lines 1000-1002 match: each line is shown once, so only the first
	// has lines before it and only the last lines after it.
	m, mid, last := res.Matches[0], res.Matches[1], res.Matches[2]
	if m.Line != 1000 || len(m.Before) != 2 || !strings.HasPrefix(m.Before[1], "line 999 ") || len(m.After) != 0 {
		t.Errorf("first match = %+v", m)
	}
	if mid.Line != 1001 || len(mid.Before)+len(mid.After) != 0 {
		t.Errorf("middle match repeats context: %+v", mid)
	}
	if last.Line != 1002 || len(last.Before) != 0 || len(last.After) != 2 || !strings.HasPrefix(last.After[0], "line 1003 ") {
		t.Errorf("last match = %+v", last)
	}
	if res, _ := s.Search(ctx, Query{ID: other, Pattern: `ok\s+error`}); res.Total != 0 {
		t.Errorf("a match across lines was counted: %+v", res)
	}
	all, err := s.Search(ctx, Query{Pattern: "error: boom"})
	if err != nil || all.Total != 1 || all.Matches[0].ID != other || all.Matches[0].Line != 1 || all.Searched != 2 {
		t.Errorf("search across outputs = %+v, %v", all, err)
	}
}

func TestSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	s, _ := Open(ctx, path, Options{})
	id, err := s.Put(ctx, Meta{Tool: "run"}, "hello\nworld\n", Final{Status: "success", ExitCode: 0})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, path, Options{})
	p, err := s.Page(ctx, id, 0, 10)
	if err != nil || strings.Join(p.Lines, ",") != "hello,world" || !p.Entry.Complete {
		t.Fatalf("after restart: %+v %v", p, err)
	}
}

// TestKillMidWrite runs a child that writes an output and is SIGKILLed while
// the output is open: what it committed must be readable, marked incomplete.
func TestKillMidWrite(t *testing.T) {
	if os.Getenv("STORE_CHILD_DB") != "" {
		t.Skip("child mode")
	}
	path := filepath.Join(t.TempDir(), "t.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "STORE_CHILD_DB="+path)
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var id string
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
			id = v
			break
		}
	}
	if id == "" {
		t.Fatal("child never became ready")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	s := open(t, path, Options{})
	e, err := s.Info(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if e.Complete || e.Status != "incomplete" || e.Lines < 20000 {
		t.Fatalf("after kill: %+v", e)
	}
	p, err := s.Page(context.Background(), id, 19999, 1)
	if err != nil || !strings.HasPrefix(p.Lines[0], "line 19999 ") {
		t.Fatalf("last committed line: %+v %v", p, err)
	}
	if owners, _ := os.ReadDir(ownersDir(path)); len(owners) != 1 || owners[0].Name() != s.owner.token {
		t.Errorf("owner files after recovery: %v, want only %s", owners, s.owner.token)
	}
}

// storeChild is the child of TestKillMidWrite: it writes to the store at
// path until it is killed.
func storeChild(path string) {
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	w, _ := s.Create(context.Background(), Meta{Tool: "run"})
	t := &childT{}
	numbered(t, w, 0, 20000)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("READY %s\n", w.ID())
	for i := 20000; ; i++ { // keep writing until killed
		numbered(t, w, i, 1)
		time.Sleep(time.Millisecond)
	}
}

// childT is the testing.TB of storeChild, which runs outside any test.
type childT struct{ testing.TB }

func (*childT) Helper() {}
func (*childT) Fatal(args ...any) {
	fmt.Fprintln(os.Stderr, args...)
	os.Exit(2)
}

func TestDiskFull(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	s := open(t, path, Options{diskLimit: 2 << 20})
	first, err := s.Put(ctx, Meta{Tool: "run"}, "kept\n", Final{Status: "success"})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.Create(ctx, Meta{Tool: "run"})
	var werr error
	chunk := []byte(strings.Repeat("y", 999) + "\n")
	for i := 0; i < 10000 && werr == nil; i++ {
		_, werr = w.Write(chunk)
	}
	if werr == nil || !strings.Contains(werr.Error(), "disk is full") {
		t.Fatalf("write to a full store: %v", werr)
	}
	if err := w.Finish(ctx, Final{Status: "success"}); err == nil {
		t.Error("Finish after a failed write reported success")
	}
	p, err := s.Page(ctx, first, 0, 1)
	if err != nil || p.Lines[0] != "kept" {
		t.Fatalf("earlier output after disk full: %+v %v", p, err)
	}
	if e, _ := s.Info(ctx, w.ID()); e.Complete {
		t.Errorf("failed output marked complete: %+v", e)
	}
}

func TestPruneAndCache(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", Options{MaxAge: time.Hour, MaxTotalBytes: 10})
	old, _ := s.Put(ctx, Meta{Tool: "a"}, "0123456789\n", Final{})
	recent, _ := s.Put(ctx, Meta{Tool: "b"}, "abc\n", Final{})
	if err := s.CachePut(ctx, "crash|bt|pid=1", old); err != nil {
		t.Fatal(err)
	}
	if id, ok, _ := s.CacheGet(ctx, "crash|bt|pid=1"); !ok || id != old {
		t.Fatalf("cache get = %q %v", id, ok)
	}
	n, err := s.Prune(ctx, time.Now())
	if err != nil || n != 1 {
		t.Fatalf("prune by size: %d %v", n, err)
	}
	if _, ok, _ := s.CacheGet(ctx, "crash|bt|pid=1"); ok {
		t.Error("cache entry survived its output")
	}
	if n, _ := s.Prune(ctx, time.Now().Add(2*time.Hour)); n != 1 {
		t.Errorf("prune by age removed %d", n)
	}
	if _, err := s.Info(ctx, recent); !errors.Is(err, ErrNotFound) {
		t.Errorf("recent output survived age prune: %v", err)
	}
}

// TestLiveWriterNotRecovered: opening a second Store on the same file while
// the first still writes must not mark the first's output incomplete.
func TestLiveWriterNotRecovered(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	s1 := open(t, path, Options{})
	w, err := s1.Create(ctx, Meta{Tool: "run"})
	if err != nil {
		t.Fatal(err)
	}
	numbered(t, w, 0, 10)
	w.Flush()
	s2 := open(t, path, Options{})
	if e, _ := s2.Info(ctx, w.ID()); e.Status != "running" || !e.Finished.IsZero() {
		t.Fatalf("live output after a second Open: %+v", e)
	}
	if err := w.Finish(ctx, Final{Status: "success"}); err != nil {
		t.Fatal(err)
	}
	// A Store closed without finishing leaves its output to the next Open.
	w2, _ := s2.Create(ctx, Meta{Tool: "run"})
	w2.Write([]byte("partial\n"))
	w2.Flush()
	s2.Close()
	s3 := open(t, path, Options{})
	if e, _ := s3.Info(ctx, w2.ID()); e.Status != "incomplete" || e.Complete || e.Lines != 1 {
		t.Fatalf("output of a closed store: %+v", e)
	}
	if e, _ := s3.Info(ctx, w.ID()); e.Status != "success" || !e.Complete {
		t.Fatalf("finished output: %+v", e)
	}
}

// TestMigrateOwnerPid opens a database with the first schema (owner_pid) and
// an output left unfinished in it.
func TestMigrateOwnerPid(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	s := open(t, path, Options{})
	id, _ := s.Put(ctx, Meta{Tool: "run"}, "a\n", Final{Status: "success"})
	for _, q := range []string{
		`ALTER TABLE outputs DROP COLUMN owner`,
		`ALTER TABLE outputs ADD COLUMN owner_pid INTEGER NOT NULL DEFAULT 0`,
		`UPDATE outputs SET finished=NULL, status='running'`,
	} {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s = open(t, path, Options{})
	if e, err := s.Info(ctx, id); err != nil || e.Status != "incomplete" {
		t.Fatalf("old unfinished output: %+v %v", e, err)
	}
	if _, err := s.Put(ctx, Meta{Tool: "run"}, "b\n", Final{}); err != nil {
		t.Fatalf("insert after migration: %v", err)
	}
}

// TestDiskFullRunEnds: on a full disk the run that did not fit is listed
// incomplete, not running, though its row's end could not be written
// (SQLite's writes fail too), whether it was finished or aborted; once
// space is back, the next run records it in the row.
func TestDiskFullRunEnds(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "t.db"), Options{diskLimit: 1 << 20})
	fill := func() *Writer {
		w, err := s.Create(ctx, Meta{Tool: "run"})
		if err != nil {
			t.Fatal(err)
		}
		chunk := []byte(strings.Repeat("y", 999) + "\n")
		var werr error
		for i := 0; i < 10000 && werr == nil; i++ {
			_, werr = w.Write(chunk)
		}
		if werr == nil {
			t.Fatal("the disk limit was not reached")
		}
		return w
	}
	finished, aborted := fill(), fill()
	if err := finished.Finish(ctx, Final{Status: "success"}); err == nil {
		t.Error("Finish on a full disk reported success")
	}
	aborted.Abort()
	listed, err := s.List(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range listed {
		if e.Status != "incomplete" || e.Complete || e.Finished.IsZero() {
			t.Errorf("%s after a full disk: status %q, complete %v, finished %v; want incomplete and ended", e.ID, e.Status, e.Complete, e.Finished)
		}
	}
	s.diskFull.Store(false) // space is back
	if _, err := s.Create(ctx, Meta{Tool: "run"}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{finished.ID(), aborted.ID()} {
		var status string
		if err := s.db.QueryRow(`SELECT status FROM outputs WHERE id=?`, id).Scan(&status); err != nil || status != "incomplete" {
			t.Errorf("%s's row once space is back: %q %v", id, status, err)
		}
	}
}
