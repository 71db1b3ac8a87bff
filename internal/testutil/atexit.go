package testutil

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

var (
	exitMu    sync.Mutex
	exitFuncs []func()
)

// AtExit registers f to run once the package's tests are over, before
// Main's checks: what a helper brings up for the whole package (the ssh
// test host) goes down there without each package having to ask.
func AtExit(f func()) {
	exitMu.Lock()
	defer exitMu.Unlock()
	exitFuncs = append(exitFuncs, f)
}

func atExit() []func() {
	exitMu.Lock()
	defer exitMu.Unlock()
	fs := exitFuncs
	exitFuncs = nil
	return fs
}

// testHostRegistry is where scripts/test-host.sh records each host it
// brought up: a file per network namespace, holding the host's directory.
const testHostRegistry = "/run/triage-test-hosts"

// leftTestHosts lists the test hosts still registered whose directory is
// under dir (the package's own temporary directory).
func leftTestHosts(dir string) []string {
	ents, err := os.ReadDir(testHostRegistry)
	if err != nil {
		return nil
	}
	var left []string
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(testHostRegistry, e.Name()))
		if err != nil {
			continue
		}
		if d := strings.TrimSpace(string(data)); strings.HasPrefix(d, dir+string(filepath.Separator)) {
			left = append(left, e.Name()+" ("+d+")")
		}
	}
	return left
}
