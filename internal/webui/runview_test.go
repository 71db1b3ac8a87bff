package webui_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// TestRunViewInChromium checks that a run's page shows what its call's
// answer showed: a crash's site (source with the faulting line marked,
// arguments and locals, the fault address, the callers and which argument
// each passed), its signal's name, its next calls as CLI commands; a
// timed-out run's stacks; an incomplete run's error; a crashed test's site
// in the tests' where column. And the Runs list: rows are links, and the
// engine commands a dump_report ran on its own are not listed while its
// session links to them.
func TestRunViewInChromium(t *testing.T) {
	s, ctx := newSite(t)
	s.call(t, "crash", "run", map[string]any{"program": crashers.Build(t, "hashgrow"), "cwd": t.TempDir()})
	t.Run("crash-site", func(t *testing.T) {
		s.open(t, ctx, "crash")
		site := text(t, ctx, `document.querySelector('#evidence #site')?.innerText || ''`)
		if !contains(site, "crash site: list_insert at ", "hashgrow.c:23 (frame #0)", "node = 0x0", "fault address 0x",
			"`node` is frame #1's `t->slots[i]`", "called from: table_grow at ", "hashgrow.c:53 (frame #1)") {
			t.Errorf("the crash site reads %q", site)
		}
		if got := text(t, ctx, `[...document.querySelectorAll('#site pre.source')].map(p => p.querySelector('.src.cur')?.textContent || '').join('|')`); !contains(got, ">    23 | ", ">    53 | ", "list_insert(t->slots[i]") {
			t.Errorf("the marked source lines read %q", got)
		}
		head := text(t, ctx, `document.querySelector('#run-head dl.meta').innerText`)
		if !contains(head, "signal", "SIGSEGV") || strings.Contains(head, "exit code") {
			t.Errorf("the run's facts read %q: want the signal's name, not exit code -1", head)
		}
		next := text(t, ctx, `[...document.querySelectorAll('#next li code.cmd')].map(e => e.textContent).join('\n')`)
		if !strings.Contains(next, "triage ") || strings.Contains(next, "{") {
			t.Errorf("the next calls read %q: want CLI commands", next)
		}
		s.fullShot(t, ctx, "run-crash-site")
	})
	t.Run("incomplete", func(t *testing.T) { checkIncomplete(t, s, ctx) })
	t.Run("hang", func(t *testing.T) {
		s.call(t, "hang", "run", map[string]any{"program": "sleep", "args": []string{"600"}, "timeout_s": 2})
		s.open(t, ctx, "hang")
		if got := text(t, ctx, `document.getElementById('evidence')?.innerText || ''`); !contains(got, "Stuck", "#0") && !contains(got, "Stacks before the kill", "#0") {
			t.Errorf("the timed-out run's evidence reads %q: want its stacks", got)
		}
		s.fullShot(t, ctx, "run-hang")
	})
	t.Run("test-where", func(t *testing.T) {
		nativeprojects.Need(t, "cmake", "ctest", "cc")
		s.call(t, "ctest", "test", map[string]any{"project_dir": nativeprojects.Write(t, nativeprojects.CMake()), "run": []string{"^t_segv$"}})
		s.open(t, ctx, "ctest")
		row := text(t, ctx, `[...document.querySelectorAll('#tests tbody tr')].map(r => [...r.children].map(c => c.textContent).join('|')).find(r => r.startsWith('crashed|')) || ''`)
		if !contains(row, "t_segv", "lib.c:4") {
			t.Errorf("the crashed test's row reads %q: want its site in where", row)
		}
	})
	t.Run("engine-rows", func(t *testing.T) { checkEngineRows(t, s, ctx) })
}

// checkIncomplete: a run whose program cannot start is an incomplete entry
// whose page says why.
func checkIncomplete(t *testing.T, s *site, ctx context.Context) {
	missing := filepath.Join(t.TempDir(), "no-such-program")
	res, err := s.mcp.CallTool(context.Background(), &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"program": missing}})
	if err != nil || !res.IsError {
		t.Fatalf("run of a missing program: %v, %+v", err, res)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/ui/?status=incomplete")); err != nil {
		t.Fatal(err)
	}
	wait(t, ctx, "the incomplete run listed", `!!document.querySelector('#runs tr.run td.verdict a')`)
	if err := chromedp.Do(ctx, chromedp.Click(`#runs tr.run td.verdict a`)); err != nil {
		t.Fatal(err)
	}
	wait(t, ctx, "its page", `!!document.getElementById('verdict')`)
	if got := text(t, ctx, `document.getElementById('verdict').textContent`); !contains(got, missing) {
		t.Errorf("the incomplete run's verdict reads %q: want the error naming %s", got, missing)
	}
	s.shot(t, ctx, "run-incomplete")
}

// checkEngineRows: a dump_report's own gdb commands are kept but not
// listed among the runs; the dump session's history links to them. Every
// row's verdict is a link to its page.
func checkEngineRows(t *testing.T, s *site, ctx context.Context) {
	core, exe := crashers.Core(t, "segv")
	_, d := s.tool(t, "dump_open", map[string]any{"core": core, "program": exe})
	id, _ := d["session_id"].(string)
	s.tool(t, "dump_report", map[string]any{"session_id": id})
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/ui/")); err != nil {
		t.Fatal(err)
	}
	wait(t, ctx, "the report listed", `[...document.querySelectorAll('#runs tr.run')].some(r => r.children[1].textContent === 'dump_report')`)
	rows := text(t, ctx, `[...document.querySelectorAll('#runs tr.run')].map(r => r.children[1].textContent + ' ' + r.children[2].textContent).join('\n')`)
	for _, l := range strings.Split(rows, "\n") {
		if strings.HasPrefix(l, "dump_report gdb ") || strings.HasPrefix(l, "dump_report lldb ") {
			t.Errorf("an engine command the report ran is listed: %q\nall rows:\n%s", l, rows)
		}
	}
	links := text(t, ctx, `[...document.querySelectorAll('#runs tr.run')].filter(r => !r.querySelector('td.verdict a[href^="/ui/runs/o-"]')).length + ' of ' + document.querySelectorAll('#runs tr.run').length`)
	if !strings.HasPrefix(links, "0 of ") {
		t.Errorf("%s rows have no link to their run", links)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/ui/sessions")); err != nil {
		t.Fatal(err)
	}
	card := fmt.Sprintf(`document.querySelector('section.dump[data-id=%q]')`, id)
	wait(t, ctx, "the report's commands in the session's history", card+`?.querySelectorAll('table.history a[href^="/ui/runs/o-"]').length > 0`)
}

// TestLiveTailAndOfflineInChromium: a background process's live tail
// follows new lines (it stays scrolled to its end as lines come), and a
// server that stops answering greys the page under a banner.
func TestLiveTailAndOfflineInChromium(t *testing.T) {
	s, ctx := newSite(t)
	release := filepath.Join(t.TempDir(), "release")
	// One line, then 400 once released, then it waits to be stopped.
	script := `echo first; while [ ! -e "$1" ]; do sleep 0.05; done; seq 1 400; sleep 600`
	_, p := s.tool(t, "process_start", map[string]any{"program": "sh", "args": []string{"-c", script, "sh", release}})
	pid, _ := p["id"].(string)
	t.Cleanup(func() {
		s.mcp.CallTool(context.Background(), &mcp.CallToolParams{Name: "process_stop", Arguments: map[string]any{"id": pid}})
	})
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/ui/sessions")); err != nil {
		t.Fatal(err)
	}
	wait(t, ctx, "the process listed", `!!document.querySelector('table.processes button')`)
	if err := chromedp.Do(ctx, chromedp.Click(`table.processes button`)); err != nil {
		t.Fatal(err)
	}
	wait(t, ctx, "its first line tailed", `document.querySelector('pre.tail')?.textContent.startsWith('first\n')`)
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wait(t, ctx, "the new lines tailed, scrolled to the last", `(() => { const o = document.querySelector('pre.tail');
		return o && o.textContent.includes('\n400\n') && o.scrollHeight > o.clientHeight && o.scrollTop + o.clientHeight >= o.scrollHeight - 4; })()`)
	// The page redraws its sessions live (here: another process starts);
	// the open tail stays at its end.
	s.tool(t, "process_start", map[string]any{"program": "echo", "args": []string{"other-process"}})
	wait(t, ctx, "the other process listed", `document.querySelector('table.processes')?.textContent.includes('other-process')`)
	if got := text(t, ctx, `(() => { const o = document.querySelector('pre.tail'); return o.scrollTop + o.clientHeight >= o.scrollHeight - 4 ? 'at end' : 'scrolled to ' + o.scrollTop + ' of ' + o.scrollHeight; })()`); got != "at end" {
		t.Errorf("after the page redrew, the tail is %s", got)
	}

	if got := text(t, ctx, `document.getElementById('offline').hidden + ' ' + document.body.className`); got != "true " {
		t.Errorf("online, the banner and body read %q", got)
	}
	s.stop()
	wait(t, ctx, "the offline banner", `!document.getElementById('offline').hidden && document.body.classList.contains('offline')`)
	if got := text(t, ctx, `getComputedStyle(document.querySelector('main')).filter + ' ' + getComputedStyle(document.getElementById('offline')).filter`); !strings.HasPrefix(got, "grayscale(1) none") {
		t.Errorf("offline, the page's and the banner's filters read %q: want the page grey, the banner not", got)
	}
	s.shot(t, ctx, "offline")
}
