package coverage

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// recordedArchive is `xccov view --archive --file PATH --json` recorded by
// another project (testdata/PROVENANCE.tsv), its project root (/repo)
// replaced by dir, escaped as xccov escapes a slash (\/).
func recordedArchive(t *testing.T, dir string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "xccov-archive-file.json"))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(data), `\/repo\/`, strings.ReplaceAll(dir, "/", `\/`)+`\/`))
}

// The recording's figures, counted apart with jq (`[.[][] |
// select(.isExecutable)] | length` and the same with executionCount > 0):
// 4 executable lines, 3 that ran (3, 4 and 6; 4 only in part, which xccov
// counts as run), 5 that did not; 1, 2 and 7 are not code.
func TestReadXccovArchiveRecording(t *testing.T) {
	dir := t.TempDir()
	rep, err := ReadXccovArchive(recordedArchive(t, dir), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := File{Path: "Sources/Kit/Greeter.swift", Kind: Own, Lines: 4, Covered: 3, Uncovered: []Range{{5, 5}}, CoveredRanges: []Range{{3, 4}, {6, 6}}}
	if rep.Tool != ToolXccov || len(rep.Files) != 1 || !reflect.DeepEqual(rep.Files[0], want) {
		t.Fatalf("tool %s files %+v, want %+v", rep.Tool, rep.Files, want)
	}
	if rep.Totals != (Counts{Files: 1, Lines: 4, Covered: 3}) || len(rep.Notes) != 0 {
		t.Errorf("totals %+v notes %q", rep.Totals, rep.Notes)
	}
	p := rep.PathOf("KitTests/GreeterTests/testGreets()")
	var b strings.Builder
	p.WriteText(&b, 10)
	if got := b.String(); got != "the failing test KitTests/GreeterTests/testGreets() ran: Sources/Kit/Greeter.swift: 3-4,6\n" {
		t.Errorf("path %q", got)
	}
	// Outside the project the file is apart, and no path of the project's.
	elsewhere, err := ReadXccovArchive(recordedArchive(t, dir), t.TempDir())
	if err != nil || elsewhere.Totals.Files != 0 || elsewhere.Apart[External].Files != 1 || len(elsewhere.PathOf("T").Files) != 0 {
		t.Errorf("another project's file: %+v %+v (%v)", elsewhere.Totals, elsewhere.Apart, err)
	}
}

// The lines of one file read from the archive join a report read from
// xccov's report (two recordings of two projects, both moved into dir):
// the file gains its ranges, the totals count it, and the note says which
// files still lack their lines; figures that disagree with the lines are
// noted, and the lines win.
func TestAddXccovLines(t *testing.T) {
	dir := t.TempDir()
	report, err := os.ReadFile(filepath.Join("testdata", "xccov-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ReadXccovReport([]byte(strings.ReplaceAll(string(report), "/Users/franco/Projects/swift", dir)), dir)
	if err != nil {
		t.Fatal(err)
	}
	n, err := rep.AddXccovLines(recordedArchive(t, dir))
	if err != nil || n != 1 {
		t.Fatalf("%d files, %v", n, err)
	}
	if rep.Totals != (Counts{Files: 10, Lines: 324, Covered: 118}) {
		t.Errorf("totals %+v: want the recording's 115 of 320 and the archive's 3 of 4", rep.Totals)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "no uncovered ranges for the 9 files whose lines were not read") {
		t.Errorf("notes %q", rep.Notes)
	}
	// The same lines as another file's, whose report says 5 of 5.
	moved := strings.ReplaceAll(string(recordedArchive(t, dir)), `Sources\/Kit\/Greeter.swift`, `Sources\/RunnerLib\/HelpMessagePresenter.swift`)
	if _, err := rep.AddXccovLines([]byte(moved)); err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Files {
		if f.Path == "Sources/RunnerLib/HelpMessagePresenter.swift" && (f.Lines != 4 || f.Covered != 3 || !reflect.DeepEqual(f.Uncovered, []Range{{5, 5}})) {
			t.Errorf("HelpMessagePresenter.swift: %+v", f)
		}
	}
	if want := "Sources/RunnerLib/HelpMessagePresenter.swift: xccov's report counts 5 of 5 lines, its archive's lines 3 of 4; the lines are shown"; !strings.Contains(strings.Join(rep.Notes, "\n"), want) {
		t.Errorf("notes %q lack %q", rep.Notes, want)
	}
}

func TestReadXccovArchiveRefusesHostileInput(t *testing.T) {
	for _, in := range []string{
		"", "[]", "null", `{"/p/a.swift":{}}`,
		`{"rel.swift":[{"line":1,"isExecutable":false}]}`,
		`{"/p/a.swift":[{"line":0,"isExecutable":true,"executionCount":1}]}`,
		`{"/p/a.swift":[{"line":1,"isExecutable":true}]}`,
		`{"/p/a.swift":[{"line":1,"isExecutable":true,"executionCount":-2}]}`,
	} {
		if _, err := ReadXccovArchive([]byte(in), "/p"); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	if rep, err := ReadXccovArchive([]byte("{}"), "/p"); err != nil || len(rep.Files) != 0 {
		t.Errorf("an archive of no files: %+v %v", rep, err)
	}
}

// A file read from xccov's report alone has figures but no lines: its
// answer does not claim that every line ran.
func TestWriteUncoveredWithoutLines(t *testing.T) {
	var b strings.Builder
	(&File{Path: "Sources/Danger/DangerDSL.swift", Kind: Own, Lines: 38, Covered: 35}).WriteUncovered(&b, MaxRanges)
	if got := b.String(); strings.Contains(got, "every counted line ran") || !strings.Contains(got, "which lines did not run is not known") {
		t.Errorf("%q", got)
	}
}
