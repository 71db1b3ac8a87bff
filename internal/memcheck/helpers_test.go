package memcheck

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil"
)

// TestMain fails the package when its tests leave a process running (a
// valgrind, a program under it) or a triage-* entry in the temporary
// directory (the XML's directory).
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// markLine is the line of testdata/src/name that carries "MARK what".
func markLine(t testing.TB, name, what string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "src", name))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		_, after, ok := strings.Cut(line, "MARK ")
		if f := strings.Fields(after); ok && len(f) > 0 && f[0] == what {
			return i + 1
		}
	}
	t.Fatalf("%s has no MARK %s", name, what)
	return 0
}

// site is "file.c:12 in fn" for the mark's line.
func site(t testing.TB, name, what, fn string) string {
	return name + ":" + strconv.Itoa(markLine(t, name, what)) + " in " + fn
}

// stackAt is where the frame a stack names is, or "".
func stackAt(s *Stack) string {
	if s == nil {
		return ""
	}
	return stackSite(s)
}

// reportAt is where the frame a report names is, or "".
func reportAt(r *Report) string {
	if f := r.Site(); f != nil {
		return where(*f)
	}
	return ""
}

func readXML(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "xml", name+".xml"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
