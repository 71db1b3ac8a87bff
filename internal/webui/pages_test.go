package webui_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// hostile is what a program prints to try to become markup on the page.
const hostile = `<script>window.pwned=1</script><b id="bold">bold</b><img src=x onerror="window.pwned=2">`

// TestPagesInChromium opens every page in a real Chromium against a
// server with real runs in it and checks what a person sees.
func TestPagesInChromium(t *testing.T) {
	s, ctx := newSite(t)
	hugeDone := s.startHuge(t)
	s.call(t, "build", "build", map[string]any{"project_dir": brokenModule(t)})
	s.call(t, "crash", "run", map[string]any{"program": crashers.Build(t, "segv"), "cwd": t.TempDir()})
	s.call(t, "tests", "test", map[string]any{"project_dir": failingModule(t)})
	s.call(t, "big", "run", map[string]any{"program": "seq", "args": []string{"1", "200000"}})
	s.call(t, "hostile", "run", map[string]any{"program": "printf", "args": []string{"%s\n", hostile}})
	if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible("#runs table")); err != nil {
		t.Fatal(err)
	}

	t.Run("runs", func(t *testing.T) {
		verdicts := text(t, ctx, `[...document.querySelectorAll('td.verdict')].map(e => e.className + ' ' + e.textContent).join('\n')`)
		if !contains(verdicts, "st-crash CRASHED (SIGSEGV)", "st-failure TESTS FAILED: 1 of 2 failed", "st-success") {
			t.Errorf("the Runs page shows:\n%s", verdicts)
		}
		s.shot(t, ctx, "runs")
	})
	t.Run("keyboard", func(t *testing.T) {
		want := s.ids["big"] // newest first: hostile, big, tests, crash
		press(t, ctx, "j", "Enter")
		wait(t, ctx, "Enter on the second row opens it", fmt.Sprintf(`location.pathname === '/ui/runs/%s'`, want))
		text(t, ctx, `history.back(), 'ok'`) // the page's own history: no document loads
		wait(t, ctx, "back on the Runs page", `!!document.querySelector('#runs tr.sel')`)
		press(t, ctx, "j", "j", "k")
		if got := text(t, ctx, `document.querySelector('#runs tr.sel').dataset.id`); got != s.ids["tests"] {
			t.Errorf("after j j k the selected row is %s, want the test run %s", got, s.ids["tests"])
		}
	})
	t.Run("live", func(t *testing.T) {
		s.call(t, "live", "run", map[string]any{"program": "echo", "args": []string{"live-marker"}})
		// Without a reload: the page is told (how soon is the live benchmark's).
		wait(t, ctx, "the new run on the open Runs page", `[...document.querySelectorAll('td.argv')].some(e => e.textContent.includes('live-marker'))`)
	})
	t.Run("progress", func(t *testing.T) { checkProgress(t, s, ctx) })
	t.Run("crash", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/ui/runs/"+s.ids["crash"]), chromedp.WaitVisible("#output .line")); err != nil {
			t.Fatal(err)
		}
		v := text(t, ctx, `document.getElementById('verdict').textContent + '|' + document.getElementById('run-head').textContent`)
		if !contains(v, "CRASHED (SIGSEGV)", "core dump kept") {
			t.Errorf("the crash's page shows %q", v)
		}
		checkCrashEvidence(t, ctx)
		s.shot(t, ctx, "run-crash")
	})
	t.Run("tests", func(t *testing.T) {
		s.open(t, ctx, "tests")
		checkTestResults(t, ctx)
		s.shot(t, ctx, "run-tests")
	})
	t.Run("build", func(t *testing.T) {
		s.open(t, ctx, "build")
		checkDiagnostics(t, ctx)
		s.shot(t, ctx, "run-build")
	})
	t.Run("search", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/ui/runs/"+s.ids["big"]), chromedp.WaitVisible("#output .line"),
			chromedp.SendKeys(`input[aria-label=search]`, "^1234[56]6$\n")); err != nil {
			t.Fatal(err)
		}
		wait(t, ctx, "the first match marked", `document.querySelector('#L123456 mark.cur')?.textContent === '123456'`)
		if got := text(t, ctx, `document.getElementById('hits').textContent`); got != "1 / 2" {
			t.Errorf("the match count reads %q, want 1 / 2", got)
		}
		if err := chromedp.Do(ctx, chromedp.Click(`button[title^="next match"]`)); err != nil {
			t.Fatal(err)
		}
		wait(t, ctx, "the next match marked", `document.querySelector('#L123466 mark.cur')?.textContent === '123466' && location.hash === '#L123466'`)
		s.shot(t, ctx, "output-search")
		if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/ui/runs/"+s.ids["big"]+"#L199999")); err != nil {
			t.Fatal(err)
		}
		wait(t, ctx, "a #L link opens its line", `document.querySelector('#L199999.target .tx')?.textContent === '199999'`)
	})
	t.Run("escaping", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/ui/runs/"+s.ids["hostile"]), chromedp.WaitVisible("#output .line")); err != nil {
			t.Fatal(err)
		}
		if got := text(t, ctx, `document.querySelector('#L1 .tx').textContent`); got != hostile {
			t.Errorf("the program's line shows as %q, want the text %q", got, hostile)
		}
		if got := text(t, ctx, `String(window.pwned) + ' ' + document.querySelectorAll('#bold, main img, main script').length`); got != "undefined 0" {
			t.Errorf("the output became markup: pwned, elements = %s", got)
		}
		s.shot(t, ctx, "run-hostile")
	})
	t.Run("huge", func(t *testing.T) {
		hugeDone(t)
		checkHugeOutput(t, s, ctx)
	})
	t.Run("sessions", func(t *testing.T) { checkSessions(t, s, ctx) })
	t.Run("doctor", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/ui/doctor")); err != nil {
			t.Fatal(err)
		}
		wait(t, ctx, "the doctor's report", `document.querySelector('pre.doctor')?.textContent.includes('core_pattern')`)
		s.shot(t, ctx, "doctor")
	})
}
