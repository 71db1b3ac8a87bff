package store

import (
	"os"
	"testing"

	"github.com/triage-dev/triage/internal/testutil"
)

// TestMain runs the child of TestKillMidWrite when STORE_CHILD_DB names its
// store; otherwise it runs the tests, failing the package when they leave a
// process running or a triage-* entry in the temporary directory.
func TestMain(m *testing.M) {
	if path := os.Getenv("STORE_CHILD_DB"); path != "" {
		storeChild(path)
	}
	os.Exit(testutil.Main(m))
}
