package debug_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/triage-dev/triage/internal/testutil"
)

// TestMain fails the package when its tests leave a process running or a
// triage-* entry in the temporary directory; the remote test host and the
// test program built once for all tests go first.
func TestMain(m *testing.M) {
	os.Exit(testutil.Main(m, func() {
		if progPath != "" {
			os.RemoveAll(filepath.Dir(progPath))
		}
	}))
}
