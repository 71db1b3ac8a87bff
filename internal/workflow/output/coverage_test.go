package output_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

// goProfile is a Go cover profile of n files, file i's blocks 10 lines
// long, run or not as run(i, block) says.
func goProfile(n, blocks int, run func(i, b int) bool) string {
	var b strings.Builder
	b.WriteString("mode: atomic\n")
	for i := range n {
		for k := range blocks {
			count := 0
			if run(i, k) {
				count = 1
			}
			fmt.Fprintf(&b, "example.com/m/p%03d/f%05d.go:%d.2,%d.10 1 %d\n", i/100, i, 10*k+1, 10*k+10, count)
		}
	}
	return b.String()
}

// storedCoverage stores a run whose coverage is the profile's, read as a
// coverage run reads it, and returns its output id.
func storedCoverage(t testing.TB, c *mcptest.Client, profile string) string {
	t.Helper()
	ctx := context.Background()
	st, err := c.Svc.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := coverage.ParseGoProfile(strings.NewReader(profile), "example.com/m", "/proj", nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.Put(ctx, store.Meta{Tool: "test", Argv: []string{"go", "test"}}, "ok\n", store.Final{Status: "success"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutFile(ctx, id, coverage.FileName, rep.Write); err != nil {
		t.Fatal(err)
	}
	return id
}

func connect(t testing.TB) *mcptest.Client {
	return mcptest.Connect(t, &config.Config{Store: config.Store{Path: filepath.Join(t.TempDir(), "out.db")}})
}

// everyOther runs the even blocks of every file.
func everyOther(_, b int) bool { return b%2 == 0 }

// BenchmarkCoverageFile asks output_get, through an in-process MCP client,
// for the last file of a stored report of 10,000 files, 40 ranges each
// (target: ≤ 20 ms).
func BenchmarkCoverageFile(b *testing.B) {
	c := connect(b)
	id := storedCoverage(b, c, goProfile(10000, 40, everyOther))
	args := map[string]any{"output_id": id, "coverage": "p099/f09999.go"}
	for b.Loop() {
		if r := c.Call("output_get", args); r.IsError || !strings.Contains(r.Text, "p099/f09999.go: 50.0% of lines (200 of 400)") {
			b.Fatal(r.Text)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "query-ms")
}

// A file of a stored report of 10,000 files: its figures and its uncovered
// ranges, found by path.
func TestCoverageFileOfLargeReport(t *testing.T) {
	c := connect(t)
	id := storedCoverage(t, c, goProfile(10000, 4, func(i, b int) bool { return b == 0 || i%2 == 0 }))
	r := c.Call("output_get", map[string]any{"output_id": id, "coverage": "p057/f05701.go"})
	if want := "p057/f05701.go: 25.0% of lines (10 of 40), 1 of 4 statements; uncovered lines: 11-40"; r.IsError || !strings.Contains(r.Text, want) {
		t.Errorf("output_get of a file: want %q in\n%s", want, r.Text)
	}
}

// output_get's source: a file's lines as the run marked them, and clear
// errors for what it cannot show.
func TestCoverageSourceErrors(t *testing.T) {
	c := connect(t)
	id := storedCoverage(t, c, goProfile(2, 2, func(i, b int) bool { return b == 0 }))
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"output_id": id, "source": true}, "give the file in coverage"},
		{map[string]any{"output_id": id, "source": true, "coverage": "p000", "since": id}, "ask for one, then the other"},
		{map[string]any{"output_id": id, "source": true, "coverage": "p000"}, "is no file of run"},
		{map[string]any{"output_id": id, "source": true, "coverage": "p000/f00001.go"}, "cannot be read here"},
	} {
		r := c.Call("output_get", tt.args)
		if !r.IsError || !strings.Contains(r.Text, tt.want) {
			t.Errorf("%v: want an error saying %q:\n%s", tt.args, tt.want, r.Text)
		}
	}
}

// A file's source page: its lines marked, the next page's call, and an
// offset past its end refused.
func TestCoverageSourcePage(t *testing.T) {
	// A budget of 100 bytes holds four of the short lines: the page stops
	// there and its next call starts at the first line it left out.
	c := mcptest.Connect(t, &config.Config{Store: config.Store{Path: filepath.Join(t.TempDir(), "out.db")}, Output: config.Output{BudgetBytes: 100}})
	ctx := context.Background()
	dir := t.TempDir()
	src := "package p\n\nfunc F() int {\n\treturn 1\n}\n\n// G is never called.\nfunc G() int {\n\treturn 2\n}\n"
	if err := os.MkdirAll(filepath.Join(dir, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p", "f.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	profile := "mode: atomic\nexample.com/m/p/f.go:3.14,5.2 1 1\nexample.com/m/p/f.go:8.14,10.2 1 0\n"
	rep, err := coverage.ParseGoProfile(strings.NewReader(profile), "example.com/m", dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Svc.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.Put(ctx, store.Meta{Tool: "test"}, "ok\n", store.Final{Status: "success"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutFile(ctx, id, coverage.FileName, rep.Write); err != nil {
		t.Fatal(err)
	}
	r := c.Call("output_get", map[string]any{"output_id": id, "coverage": "p/f.go", "source": true, "offset": 2, "limit": 6})
	for _, want := range []string{"lines 3–6 of 10", "    3 + | func F() int {", "    4 + | \treturn 1", "    5 + | }", "    6   | ", `"offset":6`} {
		if r.IsError || !strings.Contains(r.Text, want) {
			t.Errorf("want %q in\n%s", want, r.Text)
		}
	}
	r = c.Call("output_get", map[string]any{"output_id": id, "coverage": "p/f.go", "source": true, "offset": 6, "limit": 6})
	for _, want := range []string{"lines 7–9 of 10", "    7   | // G is never called.", "    8 - | func G() int {", "    9 - | \treturn 2", `"offset":9`} {
		if r.IsError || !strings.Contains(r.Text, want) {
			t.Errorf("want %q in\n%s", want, r.Text)
		}
	}
	if r := c.Call("output_get", map[string]any{"output_id": id, "coverage": "p/f.go", "source": true, "offset": 10}); !r.IsError || !strings.Contains(r.Text, "past the end") {
		t.Errorf("an offset past the end:\n%s", r.Text)
	}
	if r := c.Call("output_get", map[string]any{"output_id": id, "coverage": "p/f.go", "source": true, "offset": -1}); !r.IsError || !strings.Contains(r.Text, "0 or more") {
		t.Errorf("a negative offset:\n%s", r.Text)
	}
}
