package webui_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/identity"
	"github.com/triage-dev/triage/internal/server"
	"github.com/triage-dev/triage/internal/services"
)

// site is a real server over HTTP with real runs in it, an MCP client to
// make more, and a headless Chromium logged into its page.
type site struct {
	base  string
	srv   *server.Server
	mcp   *mcp.ClientSession
	ids   map[string]string // output ids by name
	shots string            // where screenshots go
	ts    *httptest.Server
}

// stop makes the server stop answering, as `triage daemon stop` does: its
// connections are cut and no new one is taken.
func (s *site) stop() {
	s.ts.Listener.Close()
	s.ts.CloseClientConnections()
}

// chromium is Debian's, as scripts/install-deps.sh installs it.
const chromium = "/usr/bin/chromium"

// newSite serves the page and MCP over one server, the workflows named
// enabled (none: the default ones), and logs a Chromium tab in.
func newSite(t *testing.T, workflows ...string) (*site, context.Context) {
	t.Helper()
	svc, err := services.New(&config.Config{Workflows: workflows, Store: config.Store{Path: filepath.Join(t.TempDir(), "triage.db")}}, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	srv, err := server.New(svc, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(server.HTTPOptions{}))
	t.Cleanup(ts.Close)
	t.Cleanup(srv.UI.Close)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "browser-test"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	s := &site{base: ts.URL, srv: srv, mcp: cs, ids: map[string]string{}, shots: os.Getenv("TRIAGE_UI_SHOTS"), ts: ts}
	if s.shots == "" {
		s.shots = t.TempDir()
	}
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.WindowSize(1280, 860), chromedp.Flag("lang", "en-US"))...)
	t.Cleanup(cancel)
	// A page that never shows fails, not hangs; the bound leaves room for
	// storing the 1 GiB output on a loaded machine.
	alloc, cancelTime := context.WithTimeout(alloc, 10*time.Minute)
	t.Cleanup(cancelTime)
	ctx, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.LoginURL(ts.URL, identity.Server)), chromedp.WaitVisible("#runs p")); err != nil {
		t.Fatalf("logging in with %s: %v", chromium, err)
	}
	return s, ctx
}

// call makes a tool call that must not be refused, and keeps its output id.
func (s *site) call(t *testing.T, name, tool string, args map[string]any) {
	t.Helper()
	res, err := s.mcp.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	out, _ := res.StructuredContent.(map[string]any)
	id, _ := out["output_id"].(string)
	if id == "" {
		t.Fatalf("%s gave no output_id: %+v", tool, res.Content)
	}
	s.ids[name] = id
}

// shot saves the viewport as NAME.png among the screenshots.
func (s *site) shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	s.save(t, name, png)
}

// fullShot saves the whole page, not only the viewport, as NAME.png.
func (s *site) fullShot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: a PNG
	if err != nil {
		t.Fatal(err)
	}
	s.save(t, name, png)
}

func (s *site) save(t *testing.T, name string, png []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(s.shots, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// failingModule writes a Go module whose one test fails.
func failingModule(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc.go":      "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 2); got != 4 {\n\t\tt.Fatalf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n}\n\nfunc TestZero(t *testing.T) {}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func text(t *testing.T, ctx context.Context, js string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return s
}

// wait waits until js is true on the page. Its bound only ends a test that
// can never pass, so it is generous whatever the machine's load: how fast
// the page is is for the benchmarks to say.
func wait(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(waitBound), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		// What the page shows says why, e.g. an error the server answered.
		shown, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('main')?.innerText || document.body.innerText).slice(0, 600)`))
		t.Fatalf("%s (%s): %v\nthe page shows:\n%s", what, js, err, shown)
	}
}

// waitBound is how long wait waits at most.
const waitBound = 60 * time.Second

func contains(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

// press sends keys to the focused element as keydown events, as the
// page's keyboard handling sees them.
func press(t *testing.T, ctx context.Context, keys ...string) {
	t.Helper()
	for _, k := range keys {
		js := fmt.Sprintf(`(document.activeElement || document.body).dispatchEvent(new KeyboardEvent('keydown', {key: %q, bubbles: true})) && 'ok'`, k)
		if got := text(t, ctx, js); got != "ok" {
			t.Fatalf("pressing %s: %s", k, got)
		}
	}
}
