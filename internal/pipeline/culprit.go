package pipeline

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/testreport"
)

// A run cut short names the test that was running when its runner said
// which (go test -json's "run" without a result, a serial libtest's "test x
// ... " with none). A parallel libtest prints a name only once the test
// finishes, so the test that ended the binary or hung it is found after
// the fact: from the stacks taken before a hung run was killed (here, also
// when they are read back from a log), or by rerunning the unreported
// tests one at a time (rerun.go).

// nameFromStacks names the unnamed cut-short run after the test the hang
// stacks show running (Rust: its libtest thread).
func nameFromStacks(rep *testreport.Report, stacks *hang.Report) {
	if rep == nil || stacks == nil {
		return
	}
	stuck := stacks.Analyze(runningTest(rep))
	if len(stuck) != 1 || stuck[0].Test == "" {
		return
	}
	rep.NameCutShort("", stuck[0].Test, "it was still running when the run was killed (its stack is in the log)")
	// The framework's case inside the runner's test (Catch2's, Criterion's
	// bits_popcount_counts_set_bits_impl), from its frame's source.
	if name := stuckCase(stacks, stuck[0], ""); name != "" && name != stuck[0].Test {
		running := testreport.Running{Name: name}
		if f := stuck[0].Frame; f.File != "" && f.Line > 0 {
			running.Site = fmt.Sprintf("running at %s:%d", filepath.Base(f.File), f.Line)
		}
		rep.NameRunning(stuck[0].Test, running, "its stack in the log, taken before the kill, runs it")
	}
}

// lineTap calls fn with each whole line written to it (without the
// newline); a last line without one is passed by flush.
type lineTap struct {
	buf []byte
	fn  func(string)
}

func (t *lineTap) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		t.fn(string(bytes.TrimRight(t.buf[:i], "\r")))
		t.buf = t.buf[i+1:]
	}
	if len(t.buf) > 1<<20 { // a line this long is no stack line
		t.buf = t.buf[:0]
	}
	return len(p), nil
}

func (t *lineTap) flush() {
	if len(t.buf) > 0 {
		t.fn(string(t.buf))
		t.buf = nil
	}
}
