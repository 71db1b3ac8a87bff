package webui

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/store"
)

// fetch GETs url, failing unless it answers 200, and returns its body.
func fetch(t *testing.T, c *http.Client, url string) (int, []byte) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d, %v", url, resp.StatusCode, err)
	}
	return len(b), b
}

func decode(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v in %.200s", err, b)
	}
}

// TestRunsAPIBoundsArgv: a run whose argv is 6.4 MB in one argument, and
// one of 200,000 small arguments, are listed and shown within bounds,
// "_cut" saying what was left out; the store keeps them whole.
func TestRunsAPIBoundsArgv(t *testing.T) {
	base, c, st := newUI(t)
	ctx := context.Background()
	huge := strings.Repeat("x", 6_400_000)
	many := make([]string, 200_000)
	for i := range many {
		many[i] = "-v"
	}
	var ids []string
	for _, argv := range [][]string{{"echo", huge}, append([]string{"true"}, many...)} {
		id, err := st.Put(ctx, store.Meta{Tool: "run", Argv: argv}, "out\n", store.Final{Status: "success"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}

	size, body := fetch(t, c, base+"/ui/api/runs")
	if size > 3*listFieldBytes {
		t.Errorf("the runs list is %d bytes, want at most %d", size, 3*listFieldBytes)
	}
	var l runsPage
	decode(t, body, &l)
	if len(l.Entries) != 2 {
		t.Fatalf("listed %d entries, want 2", len(l.Entries))
	}
	for _, e := range l.Entries {
		if len(e.Cut) != 1 || !strings.HasPrefix(e.Cut[0], "argv: ") || len(e.Argv) == 0 {
			t.Errorf("%s: argv of %d arguments, _cut %q: want it cut and said", e.ID, len(e.Argv), e.Cut)
		}
	}
	for _, id := range ids {
		size, body := fetch(t, c, base+"/ui/api/runs/"+id)
		if size > 2*detailFieldBytes {
			t.Errorf("run %s: %d bytes, want at most %d", id, size, 2*detailFieldBytes)
		}
		var d runDetail
		decode(t, body, &d)
		if len(d.Cut) != 1 || len(d.Argv) == 0 || d.Argv[0] != "echo" && d.Argv[0] != "true" {
			t.Errorf("run %s: argv of %d arguments, _cut %q: want it cut and said", id, len(d.Argv), d.Cut)
		}
	}
	if e, err := st.Info(ctx, ids[0]); err != nil || len(e.Argv[1]) != len(huge) {
		t.Errorf("the store no longer holds the argv whole: %v", err)
	}
}

// TestSessionsAPIBoundsArgv: a background process started with 20,000
// arguments is listed on the Sessions API within bounds, "_cut" saying
// what was left out, as a run is on the Runs API.
func TestSessionsAPIBoundsArgv(t *testing.T) {
	u, base, c, _ := serveUI(t)
	jobs, err := u.svc.Jobs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{"true"} // 60 kB of arguments, which exec takes; the page answers 4 kB
	for range 20_000 {
		argv = append(argv, "-v")
	}
	if _, err := jobs.Start(context.Background(), capture.Request{Spec: spawn.Spec{Argv: argv, Dir: t.TempDir()}, Program: "true"}); err != nil {
		t.Fatal(err)
	}
	size, body := fetch(t, c, base+"/ui/api/sessions")
	if size > 3*listFieldBytes {
		t.Errorf("the sessions answer is %d bytes, want at most %d", size, 3*listFieldBytes)
	}
	var s struct{ Processes []process }
	decode(t, body, &s)
	if len(s.Processes) != 1 || len(s.Processes[0].Cut) != 1 || len(s.Processes[0].Argv) == 0 || s.Processes[0].Argv[0] != "true" {
		t.Fatalf("processes %+.300v: want one, its argv cut and said", s.Processes)
	}
}
