package testreport

import "testing"

func TestClosingShape(t *testing.T) {
	for in, want := range map[string]string{
		"  ran 42 checks, 0 failures ": "ran N checks, N failures",
		"All 17 tests OK (0.25s)":      "All N tests OK (N.Ns)",
		"done":                         "done",
	} {
		if got := ClosingShape(in); got != want {
			t.Errorf("ClosingShape(%q) = %q, want %q", in, got, want)
		}
	}
	for line, want := range map[string]bool{
		"ran 42 checks, 0 failures": true, "All 17 tests OK": true, "3/3 passed": true,
		"parsing the input": false, "4242": false, "": false,
	} {
		if IsCountLine(line) != want {
			t.Errorf("IsCountLine(%q) = %v", line, !want)
		}
	}
}

// TestHoldToClosings: a passed test whose output ends short of its last
// passing run's count line is cut short; the same count line, or output
// as long as before with a new closing line, passes.
func TestHoldToClosings(t *testing.T) {
	prev := (&Report{Cases: []Case{
		{Suite: "s", Name: "own", Status: Passed, Closing: "ran 3 checks, 0 failures", OutputLines: 4},
		{Suite: "s", Name: "changed", Status: Passed, Closing: "3 tests passed", OutputLines: 4},
		{Suite: "s", Name: "quiet", Status: Passed, Closing: "parsing", OutputLines: 1},
	}}).Closings()
	if len(prev) != 2 {
		t.Fatalf("closings %v: want the two count lines", prev)
	}
	rep := &Report{Cases: []Case{
		{Suite: "s", Name: "own", Status: Passed, Closing: "check 1 ok", OutputLines: 2},
		{Suite: "s", Name: "changed", Status: Passed, Closing: "Summary: 3 of 3", OutputLines: 4},
		{Suite: "s", Name: "quiet", Status: Passed, Closing: "", OutputLines: 0},
	}}
	rep.finish()
	if n := rep.HoldToClosings(prev); n != 1 {
		t.Fatalf("HoldToClosings marked %d, want 1", n)
	}
	own := rep.Cases[0]
	if own.Status != Errored || len(rep.CutShort) != 1 || rep.CutShort[0].Test != "own" || rep.Status == Passed {
		t.Errorf("own %+v, cut short %+v, status %s: want own cut short", own, rep.CutShort, rep.Status)
	}
	if rep.Cases[1].Status != Passed || rep.Cases[2].Status != Passed {
		t.Errorf("cases %+v: want changed and quiet passed", rep.Cases[1:])
	}
	again := &Report{Cases: []Case{{Suite: "s", Name: "own", Status: Passed, Closing: "ran 4 checks, 0 failures", OutputLines: 3}}}
	again.finish()
	if n := again.HoldToClosings(prev); n != 0 {
		t.Errorf("the same count line with another number: marked %d, want 0", n)
	}
}
