package dump_test

import (
	"os"
	"testing"

	"github.com/triage-dev/triage/internal/testutil"
)

// TestMain fails the package when its tests leave a process running or a
// triage-* entry in the temporary directory; the remote test host goes
// first.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
