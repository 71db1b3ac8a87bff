package capture

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/memcheck"
	"github.com/triage-dev/triage/internal/textclip"
)

// Summary is the rerun's one line, which an answer puts first under its
// verdict line, above the crash site: the first memory error, "no memory
// error seen in 1 rerun under memcheck", why there is no verdict, or why
// valgrind did not run.
func (m *MemcheckRun) Summary() string {
	switch r := m.Result; {
	case r == nil:
		return "memcheck: not rerun: " + m.NotRun
	case r.Tool != "":
		return r.Summary() // a thread checker's words (memcheck.ToolHelgrind)
	case r.Outcome == memcheck.Clean && m.OnDemand:
		return "memcheck: no memory error seen in 1 run under memcheck" + leaksWords(r) + "; " + r.Ending()
	case r.Outcome == memcheck.Clean:
		return "memcheck: no memory error seen in 1 rerun under memcheck; " + r.Ending() + stackWords(m.Why)
	}
	return m.Result.Summary()
}

// stackWords is what a clean rerun of a stack smash adds: memcheck has no
// view of writes within a stack frame, so its silence clears nothing.
func stackWords(why string) string {
	if !strings.Contains(why, "stack smashing detected") {
		return ""
	}
	return "; memcheck does not see writes past an array on the stack: " +
		"a build with -fsanitize=address (test's check: memory) names the overflowing write"
}

// WriteText writes the rerun's summary, the first error's stacks
// (memcheckDetailLines at most) and a line that says why the crash was
// rerun, how long the rerun took and where valgrind's XML is. Nothing for
// nil.
func (m *MemcheckRun) WriteText(w io.Writer) {
	if m == nil {
		return
	}
	fmt.Fprintln(w, m.Summary())
	for _, l := range m.detail() {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, "  "+m.how())
}

// detail is the first error's lines under its summary, bounded.
func (m *MemcheckRun) detail() []string {
	if m.Result == nil || m.Result.Outcome != memcheck.Found {
		return nil
	}
	lines := strings.Split(strings.TrimRight(m.Result.Detail(), "\n"), "\n")[1:]
	if len(lines) > memcheckDetailLines {
		cut := len(lines) - memcheckDetailLines
		lines = append(lines[:memcheckDetailLines], fmt.Sprintf("  … %s in valgrind's XML", textclip.Count(cut, "more line")))
	}
	return lines
}

// how says why the crash was rerun, how long valgrind took of its limit,
// and where its XML is kept.
func (m *MemcheckRun) how() string {
	var s string
	switch {
	case m.Result == nil:
		return "the crash looks like memory corruption: " + m.Why
	case m.OnDemand:
		s = fmt.Sprintf("ran under valgrind %s from its start (%s); took %s", toolOf(m.Result), m.Why, m.Took.Round(100*time.Millisecond))
	default:
		s = fmt.Sprintf("rerun under valgrind memcheck because %s; took %s of its %s limit", m.Why, m.Took.Round(100*time.Millisecond), m.Limit)
	}
	switch {
	case m.OutputID != "":
		s += "; valgrind's XML: " + m.OutputID
	case m.StoreErr != nil:
		s += "; valgrind's XML not kept: " + m.StoreErr.Error()
	}
	return s
}

// leaksWords says whether a run on demand looked for leaks.
func leaksWords(r *memcheck.Result) string {
	if r.Leaks {
		return " (definite leaks checked)"
	}
	return " (leaks not checked)"
}

// toolOf is the valgrind tool a run was under.
func toolOf(r *memcheck.Result) string {
	if r.Tool != "" {
		return r.Tool
	}
	return "memcheck"
}
