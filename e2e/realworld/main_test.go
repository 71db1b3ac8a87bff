package realworld

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/triage-dev/triage/internal/testutil"
)

// triageBin is the binary under test, built once by TestMain.
var triageBin string

func TestMain(m *testing.M) {
	os.Exit(testutil.MainBuilding(m, "../../cmd/triage", &triageBin))
}

// missing fails the test in CI, where the corpus and every tool must be
// there, and skips it elsewhere.
func missing(t testing.TB, msg string) {
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
