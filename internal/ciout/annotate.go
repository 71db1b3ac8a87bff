// Package ciout writes what a build or test log says in the conventions of
// CI services: GitHub Actions workflow commands (annotations), a JUnit XML
// file of the parsed tests and a Markdown summary for a job's step summary.
// It reads the models of testreport and logfilter and nothing else.
package ciout

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/textclip"
)

// MaxAnnotations bounds the annotations written; a notice then says how
// many more there were (GitHub shows ten of each kind per step anyway).
const MaxAnnotations = 50

// maxAnnotationMessage bounds one annotation's message, in bytes.
const maxAnnotationMessage = 300

// Annotation is one GitHub Actions workflow command: ::Level props::Message.
type Annotation struct {
	Level   string // error, warning or notice
	File    string
	Line    int
	Col     int
	Title   string
	Message string
}

// String is the workflow command line, escaped as GitHub's toolkit does.
func (a Annotation) String() string {
	var props []string
	if a.File != "" {
		props = append(props, "file="+EscapeProperty(a.File))
		if a.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", a.Line))
			if a.Col > 0 {
				props = append(props, fmt.Sprintf("col=%d", a.Col))
			}
		}
	}
	if a.Title != "" {
		props = append(props, "title="+EscapeProperty(a.Title))
	}
	cmd := "::" + a.Level
	if len(props) > 0 {
		cmd += " " + strings.Join(props, ",")
	}
	return cmd + "::" + EscapeData(a.Message)
}

// EscapeData escapes a workflow command's message: %, CR and LF.
func EscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// EscapeProperty escapes a workflow command's property value: as
// EscapeData, and also ':' and ','.
func EscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// Annotations are the annotations for what the log says failed: each failed,
// errored or crashed test (at its file and line when known), then the
// compiler and linker errors and the warnings the log filter found. rep and
// log may be nil. The list is not bounded; WriteAnnotations bounds it.
func Annotations(rep *testreport.Report, log *logfilter.Summary) []Annotation {
	var out []Annotation
	if rep != nil {
		for _, c := range rep.Failures() {
			out = append(out, caseAnnotation(c))
		}
	}
	if log == nil {
		return out
	}
	for _, d := range log.Diagnostics {
		level := ""
		switch d.Kind {
		case logfilter.KindError, logfilter.KindLinker:
			level = "error"
		case logfilter.KindWarning:
			level = "warning"
		default:
			continue
		}
		a := Annotation{Level: level, File: d.File, Line: d.Line, Col: d.Col, Message: FirstLine(d.Message, maxAnnotationMessage)}
		if timestamp.MatchString(a.File) {
			a.File, a.Line, a.Col = "", 0, 0
		}
		out = append(out, a)
	}
	return out
}

// ForRun are the annotations of a run whose verdict is verdict: those of
// Annotations, and when the run failed with none at error level (a run cut
// short, a crash no test is named for), an error annotation of the verdict
// itself, first, so that no failed run shows none. When the run passed, the
// log's error lines are warnings: the verdict is that it passed.
func ForRun(rep *testreport.Report, log *logfilter.Summary, verdict string, failed bool) []Annotation {
	anns := Annotations(rep, log)
	hasError := false
	for i := range anns {
		if !failed && anns[i].Level == "error" {
			anns[i].Level = "warning"
		}
		hasError = hasError || anns[i].Level == "error"
	}
	if failed && !hasError {
		v := Annotation{Level: "error", Title: "triage", Message: FirstLine(verdict, maxAnnotationMessage)}
		anns = append([]Annotation{v}, anns...)
	}
	return anns
}

// timestamp is a log line's date and hour that a diagnostic's pattern
// (file:line:col) took for a file ("2015-09-20 16:01:11.422 Tool[1:2] Error …").
var timestamp = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[ T]\d{2}$`)

// caseAnnotation is the error annotation of a test that did not pass.
func caseAnnotation(c testreport.Case) Annotation {
	msg := FirstLine(c.Message, maxAnnotationMessage)
	if msg == "" {
		msg = "test " + string(c.Status)
	}
	return Annotation{Level: "error", File: c.File, Line: c.Line,
		Title: CaseName(c) + " [" + CaseStatus(c) + "]", Message: msg}
}

// WriteAnnotations writes the annotations one a line, at most
// MaxAnnotations, then a notice of how many more there were.
func WriteAnnotations(w io.Writer, anns []Annotation) error {
	for i, a := range anns {
		if i == MaxAnnotations {
			more := Annotation{Level: "notice", Message: fmt.Sprintf("%d more annotations not shown: see the log", len(anns)-i)}
			_, err := fmt.Fprintln(w, more)
			return err
		}
		if _, err := fmt.Fprintln(w, a); err != nil {
			return err
		}
	}
	return nil
}

// CaseName is a test's suite and name, as the filter's summary names it.
func CaseName(c testreport.Case) string {
	if c.Suite == "" {
		return c.Name
	}
	return c.Suite + " " + c.Name
}

// CaseStatus is a test's status, with its kind when it has one
// ("errored: timeout").
func CaseStatus(c testreport.Case) string {
	if c.Kind != "" {
		return string(c.Status) + ": " + c.Kind
	}
	return string(c.Status)
}

// FirstLine is the first non-blank line of s, cut to n bytes.
func FirstLine(s string, n int) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return textclip.String(line, n)
		}
	}
	return ""
}
