package webui_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// brokenModule writes a Go module that does not build: main.go calls a
// function that does not exist, on line 5.
func brokenModule(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":  "module example.com/broken\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() {\n\tprintln(\"hi\")\n\tundefinedCall()\n}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// open shows run name's page and waits for its output.
func (s *site) open(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/ui/runs/"+s.ids[name]), chromedp.WaitVisible("#output .line")); err != nil {
		t.Fatal(err)
	}
}

// checkCrashEvidence: the crash's page shows its core and the crashing
// thread's backtrace, the frame in the project's code marked with its
// file:line.
func checkCrashEvidence(t *testing.T, ctx context.Context) {
	t.Helper()
	ev := text(t, ctx, `document.getElementById('evidence')?.textContent || ''`)
	if !contains(ev, "core dump kept: ", "Backtrace (crashing thread)") {
		t.Errorf("the evidence reads %q", ev)
	}
	if got := text(t, ctx, `[...document.querySelectorAll('#evidence li.frame.project')].map(e => e.textContent).join('|')`); !contains(got, "crash_here", "segv.c:5") {
		t.Errorf("the project's frame reads %q, want crash_here at segv.c:5", got)
	}
}

// checkTestResults: the failing test comes first with its message and
// file:line, and its cell in the suite's strip is red.
func checkTestResults(t *testing.T, ctx context.Context) {
	t.Helper()
	first := text(t, ctx, `[...(document.querySelector('#tests table.cases tbody tr')?.children || [])].map(e => e.textContent).join('|')`)
	if !contains(first, "failed|", "TestAdd|", "Add(2, 2) = 0, want 4", "calc_test.go:7") {
		t.Errorf("the first test row reads %q", first)
	}
	if got := text(t, ctx, `[...document.querySelectorAll('#tests tbody tr')].map(e => e.children[1].textContent).join(' ')`); !contains(got, "TestAdd", "TestZero") {
		t.Errorf("the tests listed: %q", got)
	}
	strip := text(t, ctx, `[...document.querySelectorAll('.strip')].map(s => s.querySelector('.suite').textContent + ': ' +
		[...s.querySelectorAll('.cell')].map(c => c.dataset.status + ' ' + getComputedStyle(c).backgroundColor).join(', ')).join('\n')`)
	if !contains(strip, "example.com/calc: ", "failed rgb(207, 34, 46)", "passed rgb(26, 127, 55)") {
		t.Errorf("the strip reads %q: want the suite's failed cell red and its passed cell green", strip)
	}
}

// checkDiagnostics: a failed build's page shows its error with file:line.
func checkDiagnostics(t *testing.T, ctx context.Context) {
	t.Helper()
	got := text(t, ctx, `[...document.querySelectorAll('#diagnostics li.diag')].map(e => e.textContent).join('\n')`)
	if !contains(got, "error", "main.go:5", "undefined: undefinedCall") {
		t.Errorf("the diagnostics read %q", got)
	}
}

// checkProgress: a run that is still going shows its latest progress line
// on the open Runs page and on its own page, where the next line replaces
// it, and its verdict replaces it live when it ends. The program runs until
// the test lets it end.
func checkProgress(t *testing.T, s *site, ctx context.Context) {
	t.Helper()
	release := filepath.Join(t.TempDir(), "release")
	done := make(chan error, 1)
	go func() {
		_, err := s.mcp.CallTool(context.Background(), &mcp.CallToolParams{Name: "run", Arguments: map[string]any{
			"program": "sh", "args": []string{"-c", `echo started; while [ ! -e "$1" ]; do sleep 0.05; done; echo released`, "sh", release},
		}})
		done <- err
	}()
	defer func() {
		os.WriteFile(release, nil, 0o644) // the run ends whatever failed
		if err := <-done; err != nil {
			t.Errorf("the run: %v", err)
		}
	}()
	running := `[...document.querySelectorAll('td.verdict.st-running')].some(e => e.textContent.startsWith('running sh: '))`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](running, chromedp.WithPollingTimeout(10*time.Second), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		t.Fatalf("the running run's progress on the Runs page: %v; the verdicts read %q", err, text(t, ctx, `location.href + '\n' + document.getElementById('main').textContent`))
	}
	s.shot(t, ctx, "runs-progress")
	id := text(t, ctx, `[...document.querySelectorAll('tr.run')].find(r => r.querySelector('td.verdict.st-running')).dataset.id`)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/ui/runs/"+id)); err != nil {
		t.Fatal(err)
	}
	wait(t, ctx, "the progress line on the run's page", `document.getElementById('progress')?.textContent.startsWith('running sh: ')`)
	// The line is the latest: the next report (a second on) replaces it.
	first := text(t, ctx, `document.getElementById('progress').textContent`)
	wait(t, ctx, "the next progress line after "+first, fmt.Sprintf(`(document.getElementById('progress')?.textContent || %q) !== %[1]q`, first))
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wait(t, ctx, "the verdict in place of the progress", `document.getElementById('verdict')?.textContent.startsWith('SUCCEEDED') && !document.getElementById('progress')`)
}
