package testreport

import (
	"strconv"
	"strings"
	"testing"
)

// isGoResultLine says whether a test's output line is go test's verdict
// line of its package (ok or FAIL, the package, then a tab or the end).
func TestIsGoResultLine(t *testing.T) {
	const pkg = "example.com/m/p"
	for _, tt := range []struct {
		out  string
		want bool
	}{
		{"ok  \t" + pkg + "\t0.012s\n", true},
		{"ok  \t" + pkg + "\t(cached)\n", true},
		{"FAIL\t" + pkg + "\t0.3s\n", true},
		{"ok  \t" + pkg + "\n", true},
		{"FAIL\t" + pkg, true},
		{"ok  \t" + pkg + "/sub\t0.1s\n", false},
		{"ok  \t" + pkg + "x\n", false},
		{"ok  \t" + pkg + " 0.1s\n", false},
		{"FAIL " + pkg + "\n", false},
		{"    ok  \t" + pkg + "\t0.1s\n", false},
		{"--- FAIL: TestX (0.00s)\n", false},
		{"", false},
	} {
		if got := isGoResultLine(tt.out, pkg); got != tt.want {
			t.Errorf("isGoResultLine(%q) = %t, want %t", tt.out, got, tt.want)
		}
		// The same as the plain comparisons it replaces.
		old := strings.HasPrefix(tt.out, "ok  \t"+pkg+"\t") || strings.HasPrefix(tt.out, "FAIL\t"+pkg+"\t") ||
			strings.TrimRight(tt.out, "\n") == "ok  \t"+pkg || strings.TrimRight(tt.out, "\n") == "FAIL\t"+pkg
		if old != tt.want {
			t.Errorf("the table is wrong for %q", tt.out)
		}
	}
}

// A failure's message leaves out the runner's own lines, whole or not,
// and keeps a line whose parts came in several events, whatever they
// start with.
func TestGoMessageOfLinesInParts(t *testing.T) {
	ev := func(action, test, output string) string {
		return `{"Action":"` + action + `","Package":"p","Test":"` + test + `","Output":` + strconv.Quote(output) + "}\n"
	}
	log := ev("run", "TestX", "") +
		ev("output", "TestX", "=== RUN   TestX\n") +
		ev("output", "TestX", "    x_test.go:5: got ") +
		ev("output", "TestX", "--- not a header\n") +
		ev("output", "TestX", "=== ") +
		ev("output", "TestX", "PAUSE TestX\n") +
		ev("output", "TestX", "    second line\n") +
		ev("output", "TestX", "--- FAIL: TestX (0.00s)\n") +
		ev("fail", "TestX", "") +
		ev("output", "", "FAIL\n") + ev("fail", "", "")
	rep, err := Parse(FormatGoJSON, strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := "    x_test.go:5: got --- not a header\n    second line"
	if len(rep.Cases) != 1 || rep.Cases[0].Message != want || rep.Cases[0].File != "x_test.go" || rep.Cases[0].Line != 5 {
		t.Fatalf("cases %+v, want TestX with message %q at x_test.go:5", rep.Cases, want)
	}
}
