package realworld

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/triage-dev/triage/internal/testutil"
)

// triageBin is the binary under test, built once by TestMain.
var triageBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "triage-realworld-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	triageBin = filepath.Join(dir, "triage")
	build := exec.Command("go", "build", "-o", triageBin, "../../cmd/triage")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building triage:", err)
		os.Exit(1)
	}
	os.Exit(testutil.Main(m, func() { os.RemoveAll(dir) }))
}

// missing fails the test in CI, where the corpus and every tool must be
// there, and skips it elsewhere.
func missing(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// corpusDir is where scripts/corpus.sh puts the projects.
func corpusDir() string {
	d := os.Getenv("TRIAGE_CACHE")
	if d == "" {
		home, _ := os.UserHomeDir()
		d = filepath.Join(home, ".cache", "triage")
	}
	return filepath.Join(d, "corpus")
}
