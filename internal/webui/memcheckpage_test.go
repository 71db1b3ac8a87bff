package webui_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// The run page shows valgrind memcheck's report first in the evidence: a
// run's crash rerun under memcheck, a run under check: memory that exited
// 0, and a test's crashed test rerun (its answer's crash.memory_error);
// each with the access and the block's allocation, and a link to
// valgrind's XML, whose own page shows it.
func TestRunPageShowsMemcheck(t *testing.T) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not installed")
	}
	nativeprojects.Need(t, "cmake", "ctest", "cc")
	s, ctx := newSite(t)
	s.call(t, "overflow", "run", map[string]any{"program": crashers.Build(t, "heapoverflow"), "cwd": t.TempDir()})
	s.call(t, "oob", "run", map[string]any{"program": crashers.Build(t, "oobread"), "cwd": t.TempDir(), "check": "memory"})
	s.call(t, "ctest", "test", map[string]any{"project_dir": nativeprojects.Write(t, nativeprojects.CMakeMemory()), "run": []string{"^t_uaf$"}})
	// access and allocated end the page's sites, with their directories.
	for _, tc := range []struct{ name, summary, access, allocated string }{
		{"overflow", "memcheck: heap buffer overflow: invalid write of size 1 at heapoverflow.c:7 in fill", "/heapoverflow.c:7 in fill\n", "/heapoverflow.c:15 in main\n"},
		{"oob", "memcheck: heap buffer overflow: invalid read of size 4 at oobread.c:7 in sum", "/oobread.c:7 in sum\n", "/oobread.c:12 in main\n"},
		{"ctest", "memcheck: use after free: invalid read of size 8 at memlib.c:29 in list_sum", "/memlib.c:29 in list_sum\n", "/memlib.c:34 in push\n"},
	} {
		s.open(t, ctx, tc.name)
		shown := text(t, ctx, `document.querySelector('#evidence #memcheck')?.innerText || ''`)
		if !contains(shown, tc.summary, "access at /", tc.access, "allocated at /", tc.allocated, "valgrind's XML") {
			t.Errorf("%s: the memcheck report reads %q", tc.name, shown)
		}
		if first := text(t, ctx, `document.querySelector('#evidence h3')?.textContent || ''`); first != "Memcheck" {
			t.Errorf("%s: the evidence starts with %q, not memcheck's report", tc.name, first)
		}
		if tc.name == "oob" && !strings.Contains(shown, "check: memory") {
			t.Errorf("the checked run's report does not say it ran under check: memory: %q", shown)
		}
	}
	s.fullShot(t, ctx, "memcheck-test")
	// valgrind's XML is an output of its own, on its own page.
	if err := chromedp.Do(ctx, chromedp.Click("#memcheck a.memxml"), chromedp.WaitVisible("#output .line")); err != nil {
		t.Fatal(err)
	}
	if got := text(t, ctx, `document.getElementById('output').textContent`); !strings.Contains(got, "<valgrindoutput>") {
		t.Errorf("the XML's page shows %q", got[:min(len(got), 300)])
	}
}
