package coverage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A recorded xccov report (testdata/PROVENANCE.tsv), its project directory
// (/Users/franco/Projects/swift) replaced by dir: each file's figures are
// xccov's, the project's files count, and a file outside it is apart.
func TestReadXccovReportRecording(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "xccov-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data = []byte(strings.ReplaceAll(string(data), "/Users/franco/Projects/swift", dir))
	rep, err := ReadXccovReport(data, dir)
	if err != nil {
		t.Fatal(err)
	}
	// Danger.framework's five files: 6+0+35+5+21 of 6+65+38+5+113;
	// RunnerLib's four: 34+9+5+0 of 34+9+5+45.
	if rep.Tool != ToolXccov || rep.Totals != (Counts{Files: 9, Lines: 320, Covered: 115}) {
		t.Errorf("tool %s totals %+v", rep.Tool, rep.Totals)
	}
	for _, f := range rep.Files {
		if f.Path == "Sources/RunnerLib/Files Import/DangerFileGenerator.swift" && (f.Lines != 34 || f.Covered != 34 || f.Kind != Own) {
			t.Errorf("DangerFileGenerator.swift: %+v", f)
		}
	}
	if len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "no uncovered ranges") {
		t.Errorf("notes %q: want the lack of line data said", rep.Notes)
	}
	other := strings.Replace(string(data), dir+"/Sources/Danger/Danger.swift", "/elsewhere/Danger.swift", 1)
	rep, err = ReadXccovReport([]byte(other), dir)
	if err != nil || rep.Totals.Files != 8 || rep.Apart[External].Files != 1 {
		t.Errorf("a file outside the project: totals %+v apart %+v (%v)", rep.Totals, rep.Apart, err)
	}
}

func TestReadXccovReportRefusesHostileInput(t *testing.T) {
	for _, in := range []string{
		"", "[]", "{}",
		`{"targets":[{"name":"T","files":[{"path":"rel.swift","coveredLines":1,"executableLines":2}]}]}`,
		`{"targets":[{"name":"T","files":[{"path":"/p/a.swift","coveredLines":3,"executableLines":2}]}]}`,
		`{"targets":[{"name":"T","files":[{"path":"/p/a.swift","coveredLines":-1,"executableLines":2}]}]}`,
	} {
		if _, err := ReadXccovReport([]byte(in), "/p"); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
