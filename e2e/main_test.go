package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/triage-dev/triage/internal/testutil"
)

// triageBin is the binary under test, built once by TestMain.
var triageBin string

func TestMain(m *testing.M) {
	os.Exit(testutil.MainBuilding(m, "../cmd/triage", &triageBin))
}

// need returns the path of an external tool, failing in CI (where every tool
// must be installed) and skipping elsewhere when it is missing.
func need(t *testing.T, path, install string) string {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if p, err := exec.LookPath(path); err == nil {
		return p
	}
	msg := fmt.Sprintf("%s not found; install it with: %s", path, install)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func cacheDir() string {
	if d := os.Getenv("TRIAGE_CACHE"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "triage")
}

// inspector returns the MCP Inspector CLI entry point.
func inspector(t *testing.T) string {
	p := os.Getenv("TRIAGE_INSPECTOR")
	if p == "" {
		p = filepath.Join(cacheDir(), "inspector", "node_modules", ".bin", "mcp-inspector")
	}
	return need(t, p, "scripts/install-deps.sh (npm install @modelcontextprotocol/inspector)")
}
