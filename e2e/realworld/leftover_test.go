package realworld

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/triage-dev/triage/internal/testutil"
)

// leftRunning judges that a triage call left no process running: any
// process this test binary started, directly or not, still alive when the
// call returned (cells run one at a time, and a call answers only once every
// process of its run has died: spawn waits for them) is a problem of the
// cell. Each is killed then, so
// that the next cell starts clean and one cell's defect is its own row, not
// the package's leak check failing the whole matrix.
func leftRunning(tool string) []string {
	left := testutil.OwnProcesses()
	if len(left) == 0 {
		return nil
	}
	names := make([]string, 0, len(left))
	for _, p := range left {
		pid, cmdline, _ := strings.Cut(p, " ")
		if n, err := strconv.Atoi(pid); err == nil {
			syscall.Kill(n, syscall.SIGKILL)
		}
		name, _, _ := strings.Cut(cmdline, " ")
		names = append(names, filepath.Base(name))
	}
	return []string{fmt.Sprintf("%s: left %d process(es) running after it answered (killed now): %s",
		tool, len(left), strings.Join(names, ", "))}
}
