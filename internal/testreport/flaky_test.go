package testreport

import (
	"strings"
	"testing"
)

// TestFlakyTally: failures group by test, kind and the message's first
// line with numbers and addresses normalised, or the crash function; the
// first occurrence's run and output are kept; the verdict tells flaky
// from always failing from passing.
func TestFlakyTally(t *testing.T) {
	odd := func(n string) Occurrence {
		return Occurrence{Test: "TestX", Name: "TestX", Kind: "failed", Message: "counter " + n + " is odd at 0x" + n + "f\nmore"}
	}
	crash := Occurrence{Test: "TestX", Name: "TestX", Kind: "crashed", Message: "SIGSEGV", Site: "crash_here"}
	always := Occurrence{Test: "TestY", Name: "TestY", Kind: "failed", Message: "2 + 2 = 4"}
	ta := NewTally(6)
	ta.Add("o1", []Occurrence{odd("1"), always})
	ta.Add("o2", []Occurrence{always})
	ta.Add("o3", []Occurrence{odd("3"), crash, always})
	ta.Add("o4", []Occurrence{always})
	f := ta.Result()
	if f.Runs != 4 || f.Asked != 6 || f.Failed != 4 || len(f.Tests) != 2 {
		t.Fatalf("tally %+v", f)
	}
	y, x := f.Tests[0], f.Tests[1]
	if y.Test != "TestY" || y.Failed != 4 || len(y.Groups) != 1 || x.Test != "TestX" || x.Failed != 2 {
		t.Fatalf("tests %+v", f.Tests)
	}
	want := []FailureGroup{
		{Signature: "TestX | failed | counter N is odd at 0x?", Kind: "failed", Message: "counter 1 is odd at 0x1f", Count: 2, FirstRun: 1, FirstOutput: "o1"},
		{Signature: "TestX | crashed | crash_here", Kind: "crashed", Message: "SIGSEGV", Site: "crash_here", Count: 1, FirstRun: 3, FirstOutput: "o3"},
	}
	if len(x.Groups) != 2 || x.Groups[0] != want[0] || x.Groups[1] != want[1] {
		t.Errorf("groups %+v, want %+v", x.Groups, want)
	}
	if v := f.Verdict(); v != "TESTS FAILED: TestY failed 4 of 4 runs; FLAKY: TestX failed 2 of 4 runs (2 distinct failures)" {
		t.Errorf("verdict %q", v)
	}
	var b strings.Builder
	f.WriteText(&b)
	for _, s := range []string{"TestX: failed 2 of 4 runs\n", "  2× failed: counter 1 is odd at 0x1f (first: run 1, output o1)\n",
		"  1× crashed: in crash_here: SIGSEGV (first: run 3, output o3)\n", "ran 4 of the 6 runs asked for\n"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, b.String())
		}
	}

	pass := NewTally(3)
	for range 3 {
		pass.Add("o", nil)
	}
	if v := pass.Result().Verdict(); v != "TESTS PASSED: 3 of 3 runs" {
		t.Errorf("passing verdict %q", v)
	}
	flaky := NewTally(3)
	flaky.Add("o1", nil)
	flaky.Add("o2", []Occurrence{{Kind: "silent_failure", Message: "FAILED: exit status 1"}})
	if v := flaky.Result().Verdict(); v != "FLAKY: the run failed 1 of 2 runs (1 distinct failure)" {
		t.Errorf("flaky run verdict %q", v)
	}
}
