package testreport

import (
	"os"
	"testing"
)

// Unity's failure line, printed by ctest --output-on-failure after the
// failed test's result line, gives the failed case its file:line.
func TestCTestUnityFailureLine(t *testing.T) {
	f, err := os.Open("testdata/ctest-unity-fail.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := Parse(FormatCTest, f)
	if err != nil {
		t.Fatal(err)
	}
	fs := rep.Failures()
	if len(fs) != 1 {
		t.Fatalf("failures %+v, want parse_number only", fs)
	}
	c := fs[0]
	if c.Name != "parse_number" || c.File != "/src/cjson/tests/parse_number.c" || c.Line != 72 {
		t.Errorf("case %s at %s:%d, want parse_number at /src/cjson/tests/parse_number.c:72", c.Name, c.File, c.Line)
	}
	if want := "parse_number_should_parse_zero failed at parse_number.c:72: Expected 1 Was 2. injected"; c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}
	if rep.CutShort != nil {
		t.Errorf("cut short: %+v", rep.CutShort)
	}
}
