package stall

import (
	"os"
	"testing"

	"github.com/triage-dev/triage/internal/testutil"
)

// TestMain fails the package when its tests leave a process running.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
