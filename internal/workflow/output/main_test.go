package output_test

import (
	"os"
	"testing"

	"github.com/triage-dev/triage/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
