package e2e

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// chromium is Debian's, as scripts/install-deps.sh installs it.
const chromium = "/usr/bin/chromium"

// loginRe is the one-time login URL `triage ui` prints.
var loginRe = regexp.MustCompile(`http://127\.0\.0\.1:\d+/ui/login\?code=\S+`)

// newBrowser is a headless Chromium tab, ended with the test.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(need(t, chromium, "scripts/install-deps.sh (apt-get install chromium)")), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 860))...)
	t.Cleanup(cancel)
	alloc, cancelTime := context.WithTimeout(alloc, 3*time.Minute) // a page that never shows fails, not hangs
	t.Cleanup(cancelTime)
	ctx, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	return ctx
}

// `triage ui` from a shell asks the CLI's daemon (starting it) for the
// page, and the page a real Chromium loads from the daemon shows what
// `triage call` made in it: a debug session and a background process on
// the Sessions page, and a new run live on the Runs page. `triage daemon
// stop` ends the page's listener with the daemon.
func TestUIShowsTheDaemonsSessions(t *testing.T) {
	sh := newShell(t, t.TempDir())
	prog := crashers.Build(t, "segv")
	out := sh.call(0, "ui", "--no-browser")
	login := loginRe.FindString(out)
	if login == "" {
		t.Fatalf("triage ui printed no login URL:\n%s", out)
	}
	base := login[:strings.Index(login, "/ui/")]
	pid := sh.daemonPid()
	if again := loginRe.FindString(sh.call(0, "ui", "--no-browser")); !strings.HasPrefix(again, base+"/") || again == login || sh.daemonPid() != pid {
		t.Errorf("a second triage ui: %q, want a new code from the same daemon (pid %d) on %s", again, pid, base)
	}
	if out := sh.call(0, "debug_attach", "--program", prog, "--stop_on_entry"); !strings.Contains(out, "STOPPED") {
		t.Fatalf("debug_attach:\n%s", out)
	}
	sh.call(0, "process_start", "--program", "sleep", "--args", "60")

	ctx := newBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(login), chromedp.WaitVisible("#runs table")); err != nil {
		t.Fatalf("logging in from %s: %v", chromium, err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/sessions"), chromedp.WaitVisible("main h1")); err != nil {
		t.Fatal(err)
	}
	// The bound only ends a test that can never pass: how soon is the
	// live benchmarks' to say.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => { const t = document.querySelector('main').textContent; return t.includes('`+filepath.Base(prog)+`') && t.includes('sleep 60') })()`,
		chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('main').textContent`))
		t.Fatalf("the Sessions page does not show the daemon's debug session and process: %v\n%s", err, page)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/"), chromedp.WaitVisible("#runs table")); err != nil {
		t.Fatal(err)
	}
	sh.call(0, "run", "--program", "echo", "--args", "live-through-the-daemon")
	// Without a reload (how soon is BenchmarkLiveUpdate's to say).
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`[...document.querySelectorAll('td.argv')].some(e => e.textContent.includes('live-through-the-daemon'))`,
		chromedp.WithPollingTimeout(60*time.Second), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		t.Fatalf("the run made by triage call did not appear on the open Runs page: %v", err)
	}

	sh.call(0, "daemon", "stop")
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second); err == nil {
		c.Close()
		t.Errorf("the page's listener %s outlived the daemon", base)
	}
	if _, err := os.Stat(filepath.Join(sh.env[0][len("XDG_RUNTIME_DIR="):], "triage")); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(sh.env[0][len("XDG_RUNTIME_DIR="):], "triage", "*.sock")); len(files) > 0 {
		t.Errorf("left behind: %v", files)
	}
}
