package postmortem

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/repl"
)

// startEngine runs a real engine on the real vmcore through internal/repl.
func startEngine(t *testing.T, cfg repl.Config) *repl.Session {
	t.Helper()
	if _, err := exec.LookPath(cfg.Argv[0]); err != nil {
		t.Skipf("%s not installed (Debian package %s)", cfg.Argv[0], map[string]string{"crash": "crash", "drgn": "python3-drgn"}[cfg.Argv[0]])
	}
	cfg.StartupTimeout = 90 * time.Second
	cfg.CommandTimeout = 60 * time.Second
	s, err := repl.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("starting %s: %v", cfg.Argv[0], err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func run(t *testing.T, s *repl.Session, cmd string) string {
	t.Helper()
	out, err := s.Run(context.Background(), cmd)
	if err != nil {
		t.Fatalf("%q: %v", cmd, err)
	}
	return out
}

// TestCrashContextOnRealDump drives crash through context switches and checks
// that Update follows it and that bt's cache key follows the context.
func TestCrashContextOnRealDump(t *testing.T) {
	d := findRealDumps(t)
	s := startEngine(t, repl.Config{
		Argv:        []string{"crash", "-s", "--no_scroll", d.VMLINUX, d.VMCORE},
		QuitCommand: "quit",
	})
	router := Router{Kernel: true}
	var ctx Context
	do := func(input string) string {
		t.Helper()
		r, err := router.Route(input, "")
		if err != nil {
			t.Fatal(err)
		}
		if r.Engine != EngineCrash {
			t.Fatalf("%q routed to %s", input, r.Engine)
		}
		out := run(t, s, r.Command)
		ctx = ctx.Update(r.Engine, r.Command, out)
		return out
	}

	if out := do("bt"); !strings.Contains(out, "sysrq_handle_crash") {
		t.Fatalf("bt of the panic task:\n%s", out)
	}
	panicKey, _ := CommandKey("d", EngineCrash, "bt", ctx)

	do("set 0")
	if ctx.PID != 0 || !ctx.Set || !strings.HasPrefix(ctx.Task, "ffff") {
		t.Fatalf("after set 0: %+v", ctx)
	}
	swapper := ctx
	if out := do("bt"); !strings.Contains(out, `COMMAND: "swapper/0"`) {
		t.Errorf("bt after set 0:\n%s", out)
	}
	if k, _ := CommandKey("d", EngineCrash, "bt", ctx); k == panicKey {
		t.Errorf("bt under swapper has the panic task's key %s", k)
	}

	do("set 99999")
	if ctx != swapper {
		t.Errorf("a failed set moved the context to %+v", ctx)
	}
	do("crash: set -p")
	if ctx != (Context{}) {
		t.Errorf("set -p: %+v, want the initial context", ctx)
	}
	if k, _ := CommandKey("d", EngineCrash, "bt", ctx); k != panicKey {
		t.Errorf("bt back on the panic task: key %s, want %s", k, panicKey)
	}
	if out := do("log | tail -1"); !strings.Contains(out, "sysrq triggered crash") {
		t.Errorf("log tail:\n%s", out)
	}
}

// TestDrgnRoutingOnRealDump sends Python-looking input, unprefixed, to a
// real drgn on the vmcore.
func TestDrgnRoutingOnRealDump(t *testing.T) {
	d := findRealDumps(t)
	s := startEngine(t, repl.Config{
		Argv:     []string{"drgn", "-q", "-c", d.VMCORE, "-s", d.VMLINUX},
		Sentinel: repl.SumSentinel("%d+%d"),
		// No prompts in the output: drgn runs Python's interactive console.
		InitCommands: []string{"import sys; sys.ps1 = sys.ps2 = ''"},
		QuitCommand:  "exit()",
	})
	r, err := Router{Kernel: true}.Route("prog['init_task'].comm.string_().decode()", "")
	if err != nil || r.Engine != EngineDrgn {
		t.Fatalf("route: %+v, %v", r, err)
	}
	if out := run(t, s, r.Command); !strings.Contains(out, "swapper/0") {
		t.Errorf("init_task.comm = %q", out)
	}
	r, err = Router{Kernel: true}.Route("drgn: prog['nosuchsymbol']", "")
	if err != nil {
		t.Fatal(err)
	}
	if out := run(t, s, r.Command); !strings.Contains(out, "KeyError") {
		t.Errorf("missing symbol: %q, want a KeyError traceback", out)
	}
}
