package testreport

import (
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
