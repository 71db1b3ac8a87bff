// Package render writes the parts of a build or test result's text that
// the run and xcode workflows share: compiler errors, failed tests and the
// filtered log, each bounded (the structured output has everything).
package render

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/textclip"
)

// Bounds of the text.
const (
	MaxErrors       = 10
	MaxFailures     = 10
	MaxMessageLines = 4
)

// Errors lists compiler and linker errors among diags, or, when there are
// none, the build errors a test report recorded.
func Errors(b *strings.Builder, diags []logfilter.Diagnostic, buildErrors []string) {
	var errs []string
	for _, d := range diags {
		if d.Kind == logfilter.KindError || d.Kind == logfilter.KindLinker {
			errs = append(errs, DiagnosticLine(d))
		}
	}
	if len(errs) == 0 {
		errs = buildErrors
	}
	if len(errs) == 0 {
		return
	}
	b.WriteString("errors:\n")
	for i, e := range errs {
		if i == MaxErrors {
			fmt.Fprintf(b, "  … %d more in diagnostics\n", len(errs)-i)
			break
		}
		fmt.Fprintf(b, "  %s\n", e)
	}
}

// DiagnosticLine is "file:line:col: message (×count)".
func DiagnosticLine(d logfilter.Diagnostic) string {
	loc := d.File
	switch {
	case loc == "":
	case d.Col > 0:
		loc = fmt.Sprintf("%s:%d:%d: ", d.File, d.Line, d.Col)
	case d.Line > 0:
		loc = fmt.Sprintf("%s:%d: ", d.File, d.Line)
	default:
		loc += ": "
	}
	count := ""
	if d.Count > 1 {
		count = fmt.Sprintf(" (×%d)", d.Count)
	}
	return loc + d.Message + count
}

// Failure is one failed, errored or crashed test (or a runner error).
type Failure struct {
	Name, Status string
	Where        string // file:line, or ""
	Message      string
}

// Failures lists failed tests with the first lines of their messages;
// more says where the rest are ("tests.cases").
func Failures(b *strings.Builder, fs []Failure, more string) {
	if len(fs) == 0 {
		return
	}
	b.WriteString("failed tests:\n")
	for i, f := range fs {
		if i == MaxFailures {
			fmt.Fprintf(b, "  … %d more in %s\n", len(fs)-i, more)
			break
		}
		fmt.Fprintf(b, "  %s [%s]", f.Name, f.Status)
		if f.Where != "" {
			fmt.Fprintf(b, " at %s", f.Where)
		}
		b.WriteByte('\n')
		for j, l := range strings.Split(strings.TrimSpace(f.Message), "\n") {
			if j == MaxMessageLines {
				b.WriteString("      …\n")
				break
			}
			if l = strings.TrimSpace(l); l != "" {
				fmt.Fprintf(b, "      %s\n", l)
			}
		}
	}
}

// FilteredLog shows the filtered log (bounded) and how to see the raw one.
func FilteredLog(b *strings.Builder, c catalog.Captured, sum logfilter.Summary, ex excerpt.Excerpt) {
	if c.TotalLines == 0 {
		fmt.Fprintf(b, "log: empty (%s)\n", c.OutputID)
		return
	}
	fmt.Fprintf(b, "log (filtered: %d of %s; full log %s):\n", sum.KeptLines, textclip.Count(sum.Lines, "line"), c.OutputID)
	b.WriteString(ex.Text)
	if ex.Text != "" && !strings.HasSuffix(ex.Text, "\n") {
		b.WriteByte('\n')
	}
	if c.Next != "" {
		fmt.Fprintf(b, "more: %s\n", c.Next)
	}
}

// StoreFailure applies the store-failure rule of internal/capture to a
// result: when the output could not be stored whole, the verdict stands,
// the outcome is an error and the text ends with the note that says how
// much was kept.
func StoreFailure[T any](r catalog.Result[T], c capture.Result) catalog.Result[T] {
	if c.Err != nil {
		r.Text += c.Note()
		r.Outcome = catalog.Error
	}
	return r
}
