package run_test

import (
	"os"
	"testing"

	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/sshhost"
)

// TestMain fails the package when its tests leave a process running or a
// triage-* entry in the temporary directory.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m, sshhost.Down)) }
