package remote_test

import (
	"os"
	"testing"

	"github.com/triage-dev/triage/internal/testutil"
)

// TestMain fails the package when its tests leave a process running (the
// test host's sshd included) or a triage-* entry in the temporary directory.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
