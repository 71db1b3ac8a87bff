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

// source is where a project's fresh copies come from: the corpus, which
// must have been fetched, or the repository's testdata/own for the team's
// own projects.
func (p Project) source(t testing.TB) string {
	t.Helper()
	if p.Own {
		src, err := filepath.Abs(filepath.Join("testdata", "own", p.Dir))
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	src := filepath.Join(corpusDir(), p.Dir)
	if _, err := os.Stat(filepath.Join(src, ".fetched")); err != nil {
		missing(t, src+" not fetched: run scripts/corpus.sh")
	}
	return src
}
