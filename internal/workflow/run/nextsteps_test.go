package run_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// coreCalls finds the dump_open and debug_attach calls an answer names and
// checks they name the same existing core and program by absolute paths.
func coreCalls(t *testing.T, what, text string) (core, program string) {
	t.Helper()
	var args [2]map[string]string
	for i, tool := range []string{"dump_open", "debug_attach"} {
		m := regexp.MustCompile(tool + ` (\{"core":[^}]*\})`).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("%s names no %s call of a core:\n%s", what, tool, text)
		}
		if err := json.Unmarshal([]byte(m[1]), &args[i]); err != nil {
			t.Fatalf("%s: %s arguments %s: %v", what, tool, m[1], err)
		}
	}
	core, program = args[0]["core"], args[0]["program"]
	if args[1]["core"] != core || args[1]["program"] != program {
		t.Errorf("%s: dump_open %v and debug_attach %v name different files", what, args[0], args[1])
	}
	for _, p := range []string{core, program} {
		if !filepath.IsAbs(p) {
			t.Errorf("%s: %q is not absolute", what, p)
		} else if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	if !strings.Contains(text, "core dump: "+core) && !strings.Contains(text, "CORE "+core) {
		t.Errorf("%s does not name its evidence, the core %s:\n%s", what, core, text)
	}
	return core, program
}

// Every answer whose verdict has a core names it and the calls that open
// it, with absolute paths, and those calls work as given: run, a
// background process read to its end and stopped, and crash_report_show.
func TestCrashAnswersNameTheCoreAndTheCallsThatOpenIt(t *testing.T) {
	c, _ := connectWithStore(t)
	segv := crashers.Build(t, "segv")

	r := c.Call("run", map[string]any{"program": segv})
	core, program := coreCalls(t, "run", r.Text)
	if program != segv {
		t.Errorf("run: program %s, want %s", program, segv)
	}

	start := c.Call("process_start", map[string]any{"program": segv})
	id, _ := start.Out["id"].(string)
	out := c.Call("process_output", map[string]any{"id": id, "wait_s": 30})
	for out.Out["running"] == true { // each call waits for the next line or the end
		out = c.Call("process_output", map[string]any{"id": id, "cursor": out.Out["next_cursor"], "wait_s": 30})
	}
	coreCalls(t, "process_output of an ended process", out.Text)
	coreCalls(t, "process_stop", c.Call("process_stop", map[string]any{"id": id}).Text)

	shown := c.Call("crash_report_show", map[string]any{"path": core})
	core2, _ := coreCalls(t, "crash_report_show", shown.Text)

	attach := c.Call("debug_attach", map[string]any{"core": core2, "program": program})
	if attach.IsError || !strings.Contains(attach.Text, "crash_here") {
		t.Errorf("debug_attach as hinted:\n%s", attach.Text)
	}
	c.Call("debug_detach", nil)
}
