package webui

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/store"
)

// newUI serves a page over a store on disk and returns its URL, a client
// logged in as the server's identity and the store.
func newUI(t testing.TB) (string, *http.Client, *store.Store) {
	t.Helper()
	_, url, client, st := serveUI(t)
	return url, client, st
}

// cookie is a logged-in page's transport: its cookie and its key on every
// request, as the page's script sends them.
type cookie struct {
	c    *http.Cookie
	key  string
	next http.RoundTripper
}

func (c cookie) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.AddCookie(c.c)
	r.Header.Set(KeyHeader, c.key)
	return c.next.RoundTrip(r)
}

func getJSON(t testing.TB, c *http.Client, url string, v any) int {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if v != nil && resp.StatusCode == 200 {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v in %s", url, err, b)
		}
	}
	return resp.StatusCode
}

// TestLinesMarkMatchesInJavaScriptUnits: a page of lines carries each
// match as UTF-16 offsets, which is how the page's script slices strings.
func TestLinesMarkMatchesInJavaScriptUnits(t *testing.T) {
	base, c, st := newUI(t)
	id, err := st.Put(context.Background(), store.Meta{Tool: "run"}, "plain\né😀 error here\n<script>alert(1)</script>\n", store.Final{Status: "failure"})
	if err != nil {
		t.Fatal(err)
	}
	var p viewPage
	if code := getJSON(t, c, base+"/ui/api/runs/"+id+"/lines?offset=1&q=error|script", &p); code != 200 {
		t.Fatalf("lines: %d", code)
	}
	if p.Offset != 1 || len(p.Lines) != 2 || p.TotalLines != 3 {
		t.Fatalf("page = %+v", p)
	}
	// "é😀 " is 1+2+1 UTF-16 units: "error" starts at 4.
	if len(p.Marks[0]) != 1 || p.Marks[0][0] != [2]int{4, 9} {
		t.Errorf("marks of line 2 = %v, want [[4 9]]", p.Marks[0])
	}
	if len(p.Marks[1]) != 2 || p.Lines[1] != "<script>alert(1)</script>" {
		t.Errorf("line 3 = %q, marks %v", p.Lines[1], p.Marks[1])
	}
	var s struct {
		Hits  []struct{ Line int }
		Total int
	}
	if code := getJSON(t, c, base+"/ui/api/runs/"+id+"/search?q=error", &s); code != 200 || s.Total != 1 || s.Hits[0].Line != 1 {
		t.Errorf("search: %d %+v", code, s)
	}
	if code := getJSON(t, c, base+"/ui/api/runs/"+id+"/search?q=(", nil); code != 400 {
		t.Errorf("a pattern that does not compile: %d, want 400", code)
	}
	if code := getJSON(t, c, base+"/ui/api/runs/"+id+"/lines?offset=99", nil); code != 400 {
		t.Errorf("an offset past the end: %d, want 400", code)
	}
	if code := getJSON(t, c, base+"/ui/api/runs/o-0000000000", nil); code != 404 {
		t.Errorf("an unknown id: %d, want 404", code)
	}
}

// TestPageAndAssetsCarryThePolicy: every path of the page serves the
// page, whose scripts and styles are files (none inline).
func TestPageAndAssetsCarryThePolicy(t *testing.T) {
	base, c, _ := newUI(t)
	for _, path := range []string{"/ui/", "/ui/runs/o-1234567890", "/ui/sessions"} {
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), `src="/ui/assets/app.js"`) || strings.Contains(string(b), "<style") || strings.Contains(string(b), "style=") {
			t.Errorf("%s: %d %s", path, resp.StatusCode, b)
		}
		if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("%s: CSP %q", path, resp.Header.Get("Content-Security-Policy"))
		}
	}
	for _, a := range []string{"app.js", "runs.js", "run.js", "findings.js", "sessions.js", "app.css"} {
		if code := getJSON(t, c, base+"/ui/assets/"+a, nil); code != 200 {
			t.Errorf("%s: %d", a, code)
		}
	}
}

// TestScriptsNeverParseHTML: no script hands a string to the HTML parser,
// so program output can only ever be text.
func TestScriptsNeverParseHTML(t *testing.T) {
	scripts, err := fs.Glob(assets, "assets/*.js")
	if err != nil || len(scripts) < 4 {
		t.Fatalf("the page's scripts: %v %v", scripts, err)
	}
	for _, a := range scripts {
		b, err := assets.ReadFile(a)
		if err != nil {
			t.Fatal(err)
		}
		for _, sink := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
			if strings.Contains(string(b), sink) {
				t.Errorf("%s uses %s", a, sink)
			}
		}
	}
}

// TestRunCarriesItsFindings: a run's entry carries what its kept answer
// shows, and its progress line while it runs.
func TestRunCarriesItsFindings(t *testing.T) {
	base, c, st := newUI(t)
	ctx := context.Background()
	id, err := st.Put(ctx, store.Meta{Tool: "build"}, "x\n", store.Final{Status: "failed", VerdictLine: "BUILD FAILED",
		Result: []byte(`{"verdict":"BUILD FAILED","diagnostics":[{"kind":"error","file":"a.c","line":3,"message":"expected ';'"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	var d runDetail
	if code := getJSON(t, c, base+"/ui/api/runs/"+id, &d); code != 200 || d.Findings == nil || len(d.Findings.Diagnostics) != 1 || d.Findings.Diagnostics[0].File != "a.c" {
		t.Fatalf("run: %d %+v", code, d.Findings)
	}
	w, _ := st.Create(ctx, store.Meta{Tool: "run"})
	w.Progress(ctx, "running prog: 3 lines, 2s")
	d = runDetail{}
	if code := getJSON(t, c, base+"/ui/api/runs/"+w.ID(), &d); code != 200 || d.Findings != nil || d.Progress != "running prog: 3 lines, 2s" {
		t.Errorf("running: %d progress %q findings %+v", code, d.Progress, d.Findings)
	}
	var l store.Listing
	if getJSON(t, c, base+"/ui/api/runs", &l); len(l.Entries) != 2 || l.Entries[0].Progress != "running prog: 3 lines, 2s" {
		t.Errorf("the Runs list: %+v", l.Entries)
	}
	w.Finish(ctx, store.Final{Status: "success"})
}
