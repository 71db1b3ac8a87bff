package testutil

import (
	"os"
	"testing"
)

// TestMain fails the package when its tests leave a process running or a
// triage-* entry in the temporary directory.
func TestMain(m *testing.M) { os.Exit(Main(m)) }
