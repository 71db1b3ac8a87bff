package lldbcli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
)

// fakeLLDB answers like lldb whose event thread printed a breakpoint stop
// before the continue command's own "resuming" line, as a loaded machine
// can make it do.
const fakeLLDB = `#!/usr/bin/env python3
import sys, re
stop = "Process 7 stopped\n* thread #1, name = 'x', stop reason = breakpoint 1.1\n    frame #0: 0x1 x` + "`" + `add(a=1) at target.c:9:6\n"
out = sys.stdout
out.write("(triage-lldb) "); out.flush()
for line in sys.stdin:
    line = line.strip()
    if line == "process continue":
        out.write(stop + "Process 7 resuming\n")
    elif line == "process status":
        out.write(stop)
    elif line == "quit":
        break
    else:
        m = re.match(r"script print\((\d+)\+(\d+)\)", line)
        if m:
            out.write("%d\n" % (int(m.group(1)) + int(m.group(2))))
    out.write("(triage-lldb) "); out.flush()
`

// A stop printed before the continue's "resuming" line is the continue's
// stop, not a target still running.
func TestContinueStopBeforeResumingLine(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatalf("python3 is needed for the scripted lldb: %v", err)
	}
	fake := filepath.Join(t.TempDir(), "lldb")
	if err := os.WriteFile(fake, []byte(fakeLLDB), 0o755); err != nil {
		t.Fatal(err)
	}
	b := New(debugger.Config{Dir: t.TempDir()})
	b.lldb = fake
	ctx := context.Background()
	if err := b.start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.session().Close() })
	b.state = debugger.State{Status: debugger.StatusStopped, Pid: 7}
	st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 20 * time.Second})
	if err != nil || st.Status != debugger.StatusStopped || st.LastStop == nil || st.LastStop.Reason != debugger.StopBreakpoint {
		t.Fatalf("continue: %+v %v", st, err)
	}
}
