package realworld

import (
	"strings"
	"testing"
)

// TestMergedRows: a subset run rewrites its cells' rows and the header's
// counts, and leaves every other row as it was.
func TestMergedRows(t *testing.T) {
	m := matrix()
	a, b, c := m[0], m[1], m[2]
	before := markdown([]Outcome{
		{Cell: a, Truth: "passed", Test: "TESTS PASSED: 1 passed", Filter: "TESTS PASSED: 1 passed"},
		{Cell: b, Truth: "failed", Test: "TESTS PASSED: 1 passed", Filter: "x", Problems: []string{"test: passed, want failed"}},
		{Cell: c, Truth: "crashed", Test: "CRASHED: old", Filter: "CRASHED: old"},
	}, true, "")
	if !strings.Contains(before, "2 of 3 cells right") {
		t.Fatalf("full render counts:\n%s", before)
	}
	after := mergedMarkdown([]Outcome{
		{Cell: b, Truth: "failed", Test: "TESTS FAILED: 1 of 1 failed", Filter: "TESTS FAILED: 1 of 1 failed"},
	}, before)
	for _, want := range []string{
		"3 of 3 cells right",
		"| " + b.Project + " | " + b.Fault + " | failed | `TESTS FAILED: 1 of 1 failed` |",
		"`CRASHED: old`", // c's row kept
		"| " + a.Project + " | " + a.Fault + " | passed | ", // a's row kept
		"cells of it have no row yet",                       // the rest of the matrix never ran
	} {
		if !strings.Contains(after, want) {
			t.Errorf("merged file lacks %q:\n%s", want, after)
		}
	}
	if strings.Contains(after, "want failed") {
		t.Errorf("b's old row survived:\n%s", after)
	}
	if ia, ib := strings.Index(after, "| "+a.Project+" | "+a.Fault+" |"), strings.Index(after, "| "+b.Project+" | "+b.Fault+" |"); ia > ib {
		t.Errorf("rows out of the matrix's order")
	}
}
