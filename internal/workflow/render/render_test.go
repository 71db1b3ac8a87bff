package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/logfilter"
)

func TestErrorsBoundedAndFallBackToBuildErrors(t *testing.T) {
	var diags []logfilter.Diagnostic
	for i := range 12 {
		diags = append(diags, logfilter.Diagnostic{Kind: logfilter.KindError, File: "a.c", Line: i + 1, Col: 2, Message: "bad"})
	}
	diags = append(diags, logfilter.Diagnostic{Kind: logfilter.KindWarning, File: "w.c", Line: 1, Message: "unused"})
	var b strings.Builder
	Errors(&b, diags, []string{"not shown: diagnostics win"})
	got := b.String()
	if !strings.HasPrefix(got, "errors:\n  a.c:1:2: bad\n") || !strings.HasSuffix(got, "  a.c:10:2: bad\n  … 2 more in diagnostics\n") || strings.Contains(got, "unused") || strings.Contains(got, "not shown") {
		t.Errorf("errors:\n%s", got)
	}
	b.Reset()
	Errors(&b, nil, []string{"ld: symbol not found"})
	if b.String() != "errors:\n  ld: symbol not found\n" {
		t.Errorf("build errors: %q", b.String())
	}
	b.Reset()
	Errors(&b, nil, nil)
	if b.Len() != 0 {
		t.Errorf("nothing to say, said %q", b.String())
	}
}

func TestDiagnosticLine(t *testing.T) {
	for _, tt := range []struct {
		d    logfilter.Diagnostic
		want string
	}{
		{logfilter.Diagnostic{File: "a.c", Line: 3, Col: 4, Message: "m", Count: 2}, "a.c:3:4: m (×2)"},
		{logfilter.Diagnostic{File: "a.c", Line: 3, Message: "m"}, "a.c:3: m"},
		{logfilter.Diagnostic{File: "ld", Message: "m"}, "ld: m"},
		{logfilter.Diagnostic{Message: "m"}, "m"},
	} {
		if got := DiagnosticLine(tt.d); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestFailuresBounded(t *testing.T) {
	var fs []Failure
	for i := range 11 {
		fs = append(fs, Failure{Name: fmt.Sprintf("T%d", i), Status: "failed", Where: "t.swift:9", Message: "1\n2\n3\n4\n5"})
	}
	var b strings.Builder
	Failures(&b, fs, "tests.cases")
	got := b.String()
	if !strings.HasPrefix(got, "failed tests:\n  T0 [failed] at t.swift:9\n      1\n      2\n      3\n      4\n      …\n") ||
		!strings.HasSuffix(got, "  … 1 more in tests.cases\n") || strings.Contains(got, "T10") {
		t.Errorf("failures:\n%s", got)
	}
}

func TestFilteredLog(t *testing.T) {
	var b strings.Builder
	FilteredLog(&b, catalog.Captured{OutputID: "out-1"}, logfilter.Summary{}, excerpt.Excerpt{})
	if b.String() != "log: empty (out-1)\n" {
		t.Errorf("empty: %q", b.String())
	}
	b.Reset()
	FilteredLog(&b, catalog.Captured{OutputID: "out-2", TotalLines: 50, Next: "output_get"}, logfilter.Summary{KeptLines: 2, Lines: 50}, excerpt.Excerpt{Text: "a\nb"})
	if want := "log (filtered: 2 of 50 lines; full log out-2):\na\nb\nmore: output_get\n"; b.String() != want {
		t.Errorf("log: %q, want %q", b.String(), want)
	}
}
