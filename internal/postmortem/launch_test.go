package postmortem

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/triage-dev/triage/internal/interactive"
)

func TestEngineConfigOverSSH(t *testing.T) {
	tg := Target{Kernel: true, Vmcore: "/srv/vmcore", Vmlinux: "/srv/vmlinux", SSHHost: "crashbox",
		ExtraArgs: map[Engine][]string{EngineCrash: {"--minimal"}}}
	cfg, err := engineConfig(EngineCrash, tg)
	if err != nil {
		t.Fatal(err)
	}
	// The engine is named bare, found in the remote's PATH.
	if !slices.Equal(cfg.Argv, []string{"crash", "-s", "--no_scroll", "--minimal", "/srv/vmlinux", "/srv/vmcore"}) {
		t.Errorf("argv = %q", cfg.Argv)
	}
	if _, err := engineConfig(EngineGDB, tg); !errors.Is(err, ErrWrongEngine) {
		t.Errorf("gdb on a kernel dump: %v", err)
	}
}

// Only what would make the engine read its own input is refused; the
// engines' scripting and host commands run (the policy is in
// docs/ARCHITECTURE.md, "Engine scripting").
func TestCheckCommand(t *testing.T) {
	tests := []struct {
		e   Engine
		cmd string
		bad bool
	}{
		{EngineCrash, "bt", false},
		{EngineCrash, "!ls", false},
		{EngineCrash, "log | grep x", false},
		{EngineCrash, "log > /tmp/x", false},
		{EngineCrash, "gdb shell id", false},
		{EngineCrash, "!", true},
		{EngineCrash, " ! ", true},
		{EngineCrash, "gdb shell", true},
		{EngineCrash, "gdb python", true},
		{EngineGDB, "shell id", false},
		{EngineGDB, "!id", false},
		{EngineGDB, "pipe bt | sh", false},
		{EngineGDB, "python import os; os.system('id')", false},
		{EngineGDB, "pi 1+1", false},
		{EngineGDB, "shell", true},
		{EngineGDB, "she", true},
		{EngineGDB, "!", true},
		{EngineGDB, "pi", true},
		{EngineGDB, "python-interactive", true},
		{EngineGDB, "python", true},
		{EngineGDB, "define f", true},
		{EngineGDB, "sh", false}, // ambiguous to gdb: an error, not a shell
		{EngineLLDB, "platform shell id", false},
		{EngineLLDB, "platform shell", false}, // lldb prints its usage
		{EngineLLDB, "script import os; os.system('id')", false},
		{EngineLLDB, "script", true},
		{EngineLLDB, "sc", true},
		{EngineLLDB, "expr", true},
		{EngineLLDB, "po", true},
		{EngineLLDB, "br com add", true},
		{EngineLLDB, "breakpoint command add -o bt", false},
		{EngineDrgn, "import os; os.system('id')", false},
	}
	for _, tt := range tests {
		err := CheckCommand(tt.e, tt.cmd)
		if (err != nil) != tt.bad || (err != nil && !errors.Is(err, interactive.ErrReadsInput)) {
			t.Errorf("CheckCommand(%s, %q) = %v, want refused %v", tt.e, tt.cmd, err, tt.bad)
		}
	}
}

func TestEngineError(t *testing.T) {
	tests := []struct {
		e        Engine
		out, err string
	}{
		{EngineCrash, "PID: 1  TASK: ffff\n #0 panic", ""},
		{EngineCrash, "crash: command not found: bogus", "crash: command not found: bogus"},
		{EngineCrash, "bt: invalid task or pid value: 99999", "bt: invalid task or pid value: 99999"},
		{EngineCrash, "[    0.0] invalid opcode: 0000", ""},
		{EngineDrgn, "Traceback (most recent call last):\n  File \"<dump_command>\", line 1, in <module>\nKeyError: 'nosuch'", "KeyError: 'nosuch'"},
		{EngineDrgn, "(char [16])\"swapper/0\"", ""},
		{EngineGDB, `No symbol "x" in current context.`, `No symbol "x" in current context.`},
		{EngineGDB, "#0  crash_here (p=0x0) at segv.c:5", ""},
		{EngineLLDB, "error: use of undeclared identifier 'x'", "error: use of undeclared identifier 'x'"},
		{EngineLLDB, "* thread #1, stop reason = signal SIGSEGV", ""},
	}
	for _, tt := range tests {
		if got := EngineError(tt.e, tt.out); got != tt.err {
			t.Errorf("EngineError(%s, %q) = %q, want %q", tt.e, tt.out, got, tt.err)
		}
	}
}

func TestCrashSentinel(t *testing.T) {
	f := crashSentinel()
	s0, s1 := f(0), f(1)
	if s0.Command == s1.Command {
		t.Fatal("two commands share a sentinel")
	}
	var a, b int64
	if _, err := fmtSscanf(s0.Command, &a, &b); err != nil {
		t.Fatal(err)
	}
	sum := a + b
	out := "PID: 1\n" + hexLine(sum) + "    decimal: " + itoa(sum) + "  \n      octal: 1\n"
	if i := s0.Done(out); i != len("PID: 1\n") {
		t.Errorf("Done = %d on\n%s", i, out)
	}
	// The command's own text, or another sum, does not end the output.
	for _, o := range []string{s0.Command + "\n", hexLine(sum+1) + "    decimal: " + itoa(sum+1) + "\n", "    decimal: " + itoa(sum) + "\n"} {
		if s0.Done(o) >= 0 {
			t.Errorf("Done matched %q", o)
		}
	}
}

func fmtSscanf(s string, a, b *int64) (int, error) { return fmt.Sscanf(s, "eval %d+%d", a, b) }
func hexLine(n int64) string                       { return fmt.Sprintf("hexadecimal: %x  \n", n) }
func itoa(n int64) string                          { return strconv.FormatInt(n, 10) }
