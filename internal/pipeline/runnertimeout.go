package pipeline

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/testreport"
)

// runnerTimeoutLine is the verdict of a test run in which the test runner
// itself stopped a test at its own time limit (a case of Kind
// testreport.KindTimeout: CTest's TIMEOUT, meson's timeout:, go test
// -timeout): "TIMED OUT (the runner's own limit) in slow: timed out after
// 30.06 s; 1 of 2 failed". A test that never ends is a hang to look into,
// not an assertion to read, whatever else failed beside it, so it leads
// the line as triage's own timeout does; the count says what else failed.
// It is "" when no test timed out.
func runnerTimeoutLine(rep *testreport.Report, bad int) string {
	var first *testreport.Case
	n := 0
	for _, c := range rep.Failures() {
		if c.Kind != testreport.KindTimeout {
			continue
		}
		if n++; first == nil {
			first = &c
		}
	}
	if first == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("TIMED OUT (the runner's own limit) in " + qualifiedName(*first, rep.Format))
	if first.File != "" {
		fmt.Fprintf(&b, " at %s:%d", baseName(first.File), first.Line)
	}
	if msg := firstLine(first.Message); msg != "" {
		b.WriteString(": " + clip(msg, 160))
	}
	if n > 1 {
		fmt.Fprintf(&b, " (and %d more timed out)", n-1)
	}
	fmt.Fprintf(&b, "; %d of %d failed", bad, rep.Totals.Total)
	return b.String()
}
