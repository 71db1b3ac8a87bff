package webui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// tool makes a tool call that must succeed and returns its text and
// structured answer.
func (s *site) tool(t *testing.T, tool string, args map[string]any) (string, map[string]any) {
	t.Helper()
	res, err := s.mcp.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("%s failed:\n%s", tool, text.String())
	}
	out, _ := res.StructuredContent.(map[string]any)
	return text.String(), out
}

// checkSessions opens a debug session stopped at a breakpoint, a process
// core and a background process, and checks the Sessions page shows them:
// live, the debug session's next stop, which a continue that did not wait
// left to the debugger to report, with its top frame and its breakpoint;
// the dump's engine and, live, the command run on it with a link to its
// output; then the process's tail.
func checkSessions(t *testing.T, s *site, ctx context.Context) {
	text, dbg := s.tool(t, "debug_attach", map[string]any{"program": crashers.Build(t, "segv"), "breakpoints": []string{"main", "crash_here"}})
	debugID, _ := dbg["session_id"].(string)
	if !strings.HasPrefix(text, "STOPPED at breakpoint 1 in main") {
		t.Fatalf("debug_attach:\n%s", text)
	}
	core, exe := crashers.Core(t, "segv")
	_, d := s.tool(t, "dump_open", map[string]any{"core": core, "program": exe})
	dumpID, _ := d["session_id"].(string)
	if text, p := s.tool(t, "process_start", map[string]any{"program": "seq", "args": []string{"1", "3"}}); p["output_id"] == nil {
		t.Fatalf("process_start:\n%s", text)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/ui/sessions"), chromedp.WaitVisible("main h1")); err != nil {
		t.Fatal(err)
	}
	dbgCard := fmt.Sprintf(`document.querySelector('section.debug[data-id=%q]')`, debugID)
	wait(t, ctx, "the debug session at main", dbgCard+`?.querySelector('ol.frames li')?.textContent === '#0mainsegv.c:9'`)
	// The continue answers at once (nobody asks for the stack after it):
	// the breakpoint's stop comes later, by the debugger's own report.
	text, _ = s.tool(t, "debug_continue", map[string]any{"session_id": debugID, "wait_s": 0})
	t.Logf("debug_continue, wait_s 0: %s", strings.SplitN(text, "\n", 2)[0])
	wait(t, ctx, "the next stop's top frame, live", dbgCard+`?.querySelector('ol.frames li')?.textContent === '#0crash_heresegv.c:5'`)
	if got := text2(t, ctx, dbgCard+`.querySelector('.last-stop').textContent + '|' + `+dbgCard+`.querySelector('h3').textContent`); !contains(got, "breakpoint", "thread", "|"+debugID, "stopped") {
		t.Errorf("the debug session's stop and state read %q", got)
	}
	if got := text2(t, ctx, dbgCard+`.querySelector('table.bps tr[data-bp="2"]').innerText`); !contains(got, "crash_here", "segv.c:5", "verified", "1") {
		t.Errorf("the breakpoint's row reads %q", got)
	}
	dumpCard := fmt.Sprintf(`document.querySelector('section.dump[data-id=%q]')`, dumpID)
	if got := text2(t, ctx, dumpCard+`?.innerText ?? 'no card'`); !contains(got, "process core", core, "gdb", "lldb", "drgn") {
		t.Errorf("the dump session reads %q", got)
	}
	s.tool(t, "dump_command", map[string]any{"session_id": dumpID, "command": "gdb:info sharedlibrary"})
	// Without a reload: the live "sessions" event brings the command.
	wait(t, ctx, "the command in the dump's history", dumpCard+`?.querySelector('table.history td.cmd')?.textContent === 'info sharedlibrary'`)
	// Again: served from the cache, which stores nothing: only the
	// session's own change tells the page.
	s.tool(t, "dump_command", map[string]any{"session_id": dumpID, "command": "gdb:info sharedlibrary"})
	wait(t, ctx, "the cached command in the dump's history", dumpCard+`?.querySelectorAll('table.history td.cached').length === 1`)
	if got := text2(t, ctx, dumpCard+`.querySelector('tr[data-engine=gdb]').innerText`); !strings.Contains(got, "running") {
		t.Errorf("gdb's row after a command reads %q", got)
	}
	checkProcessTail(t, ctx)
	s.fullShot(t, ctx, "sessions")
	if err := chromedp.Do(ctx, chromedp.Click(`section.dump table.history a`)); err != nil {
		t.Fatal(err)
	}
	wait(t, ctx, "the command's output in the viewer", `location.pathname.startsWith('/ui/runs/o-') && [...document.querySelectorAll('#output .line .tx')].some(e => e.textContent.includes('libc.so'))`)
}

// checkProcessTail opens the background process's live tail.
func checkProcessTail(t *testing.T, ctx context.Context) {
	wait(t, ctx, "the background process listed", `document.querySelector('table.processes')?.textContent.includes(' 1 3')`)
	if err := chromedp.Do(ctx, chromedp.Click(`table.processes button`)); err != nil {
		t.Fatal(err)
	}
	wait(t, ctx, "its output tailed", `document.querySelector('pre.tail')?.textContent.startsWith('1\n2\n3\n')`)
}

// hugeSize is the output of the run the viewer opens: 1 GiB, 10,737,418
// lines of 100 bytes and a last line of 24 (lastLine).
const hugeSize = 1 << 30

// startHuge starts the run that prints hugeSize bytes, and returns what
// waits for its end: storing 1 GiB takes the longest of the page's tests,
// so it goes on while the others run.
func (s *site) startHuge(t *testing.T) (done func(t *testing.T)) {
	prog := crashers.Build(t, "bigoutput")
	start := time.Now()
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		res, err := s.mcp.CallTool(context.Background(), &mcp.CallToolParams{Name: "run",
			Arguments: map[string]any{"program": prog, "args": []string{fmt.Sprint(hugeSize)}, "timeout_s": 1800}})
		ch <- answer{res, err}
	}()
	return func(t *testing.T) {
		a := <-ch
		if a.err != nil {
			t.Fatalf("run: %v", a.err)
		}
		out, _ := a.res.StructuredContent.(map[string]any)
		if s.ids["huge"], _ = out["output_id"].(string); s.ids["huge"] == "" {
			t.Fatalf("the 1 GiB run gave no output_id: %+v", a.res.Content)
		}
		t.Logf("a run printing 1 GiB took %v (alongside the tests before this one)", time.Since(start).Round(time.Second))
	}
}

// checkHugeOutput opens the 1 GiB output: the viewer's first page, and its
// last line by a #L link.
func checkHugeOutput(t *testing.T, s *site, ctx context.Context) {
	s.open(t, ctx, "huge")
	if got := text2(t, ctx, `document.querySelector('#L1 .tx').textContent`); got != strings.Repeat("abcdefghijklmnopqrstuvwxyz", 3)+"abcdefghijklmnopqrstu" {
		t.Errorf("the first line reads %q", got)
	}
	last := hugeSize/100 + 1
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/ui/runs/%s#L%d", s.base, s.ids["huge"], last))); err != nil {
		t.Fatal(err)
	}
	wait(t, ctx, "the last line of 1 GiB by its #L link", fmt.Sprintf(`document.querySelector('#L%d.target .tx')?.textContent === %q`, last, lastLine(hugeSize)))
	s.shot(t, ctx, "output-huge")
}

// lastLine is the last, partial line bigoutput prints for size bytes (size
// not a multiple of 100): it writes chunks of 65500 bytes, each from the
// start of its buffer, whose byte i is 'a'+i%26 (a newline every 100).
func lastLine(size int) string {
	n := size % 65500
	var b strings.Builder
	for i := n - n%100; i < n; i++ {
		b.WriteByte(byte('a' + i%26))
	}
	return b.String()
}

// text2 is text for expressions that may read a missing element: the
// error is the test's failure, not a panic.
func text2(t *testing.T, ctx context.Context, js string) string {
	t.Helper()
	return text(t, ctx, `(() => { try { return String(`+js+`) } catch (e) { return 'error: ' + e.message } })()`)
}
