package ciout

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testreport"
)

// recorded are logs of several toolchains, recorded from real runs.
var recorded = []string{
	"ctest.log", "cargo-test.log", "go-test-json.log", "meson/demo.txt", "meson/suites.txt",
	"automake-check-segv.log", "frameworks/gtest/gtest-fail.log",
}

func parseRecorded(t *testing.T, name string) *testreport.Report {
	t.Helper()
	f, err := os.Open(filepath.Join("../testreport/testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := testreport.ParseAuto(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) == 0 {
		t.Fatalf("%s: no cases parsed", name)
	}
	return rep
}

// TestEscaping: a message keeps ':' and ',' and escapes '%' and line
// breaks; a property escapes all five.
func TestEscaping(t *testing.T) {
	a := Annotation{Level: "error", File: "dir,x/a:b.go", Line: 7, Col: 3,
		Title: "pkg TestX/a,b:c [failed]", Message: "100% off, a: b\r\nnext"}
	want := "::error file=dir%2Cx/a%3Ab.go,line=7,col=3,title=pkg TestX/a%2Cb%3Ac [failed]::100%25 off, a: b%0D%0Anext"
	if got := a.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := EscapeProperty("50%\n"); got != "50%25%0A" {
		t.Errorf("EscapeProperty: %q", got)
	}
	c := testreport.Case{Suite: "s", Name: "n", Status: testreport.Failed, Message: "\n  got 5%, want: 6\nmore"}
	if got, want := caseAnnotation(c).String(), "::error title=s n [failed]::got 5%25, want: 6"; got != want {
		t.Errorf("case: got %s, want %s", got, want)
	}
}

// TestAnnotationsBounded: at most MaxAnnotations, then a notice of the rest;
// errors and warnings of the log follow the tests, other kinds are left out.
func TestAnnotationsBounded(t *testing.T) {
	rep := &testreport.Report{}
	for i := range 60 {
		rep.Cases = append(rep.Cases, testreport.Case{Name: fmt.Sprint("T", i), Status: testreport.Crashed})
	}
	log := &logfilter.Summary{Diagnostics: []logfilter.Diagnostic{
		{Kind: logfilter.KindError, File: "a.c", Line: 3, Col: 9, Message: "x undeclared"},
		{Kind: logfilter.KindNote, Message: "a note"},
		{Kind: logfilter.KindWarning, Message: "w"},
	}}
	anns := Annotations(rep, log)
	if len(anns) != 62 || anns[60].String() != "::error file=a.c,line=3,col=9::x undeclared" || anns[61].String() != "::warning::w" {
		t.Fatalf("annotations: %d, %v", len(anns), anns[59:])
	}
	var b bytes.Buffer
	if err := WriteAnnotations(&b, anns); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != MaxAnnotations+1 || lines[0] != "::error title=T0 [crashed]::test crashed" ||
		lines[MaxAnnotations] != "::notice::12 more annotations not shown: see the log" {
		t.Errorf("%d lines: first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
}

// TestJUnitRoundTrip: the JUnit file of each recorded log reads back with
// testreport's own JUnit reader to the same totals (crashed being errored
// in JUnit) and the same tests.
func TestJUnitRoundTrip(t *testing.T) {
	for _, name := range recorded {
		t.Run(name, func(t *testing.T) {
			rep := parseRecorded(t, name)
			var b bytes.Buffer
			if err := WriteJUnit(&b, rep); err != nil {
				t.Fatal(err)
			}
			back, err := testreport.Parse(testreport.FormatJUnit, bytes.NewReader(b.Bytes()))
			if err != nil {
				t.Fatalf("%v\n%s", err, b.String())
			}
			w, g := rep.Totals, back.Totals
			if g.Total != w.Total || g.Passed != w.Passed || g.Failed != w.Failed || g.Skipped != w.Skipped ||
				g.Errored+g.Crashed != w.Errored+w.Crashed {
				t.Errorf("totals: got %+v, want %+v", g, w)
			}
			if len(back.Cases) != len(rep.Cases) {
				t.Fatalf("%d cases back, want %d", len(back.Cases), len(rep.Cases))
			}
			for i, c := range rep.Cases {
				b := back.Cases[i]
				if b.Suite != c.Suite || b.Name != c.Name || b.File != c.File || b.Line != c.Line {
					t.Errorf("case %d: got %q %q %s:%d, want %q %q %s:%d", i, b.Suite, b.Name, b.File, b.Line, c.Suite, c.Name, c.File, c.Line)
				}
			}
			if ts := back.ToolSummary; ts == nil || ts.Total != w.Total {
				t.Errorf("tally attributes: %+v", ts)
			}
		})
	}
}

// TestMarkdown: the verdict as a heading, a row per failed test with its
// place, the counts; a pipe in a name does not break the table.
func TestMarkdown(t *testing.T) {
	rep := parseRecorded(t, "cargo-test.log")
	rep.Cases = append(rep.Cases, testreport.Case{Suite: "s", Name: "a|b", Status: testreport.Errored, Kind: testreport.KindTimeout})
	var b bytes.Buffer
	if err := WriteMarkdown(&b, "TESTS FAILED: 2 of 4 failed", rep, &logfilter.Summary{Toolchain: "cargo", Lines: 72}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"### TESTS FAILED: 2 of 4 failed\n",
		"| unittests src/lib.rs tests::wrong | failed | `src/lib.rs:9` | assertion `left == right` failed: math is broken |\n",
		"| s a\\|b | errored: timeout |  |  |\n",
		"**Tests (cargo):** 4 total, 1 passed, 2 failed, 0 errored, 0 crashed, 1 skipped\n",
		"**Log (cargo):** 72 lines,",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}
