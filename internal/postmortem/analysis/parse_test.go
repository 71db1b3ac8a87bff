package analysis

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/fault"
)

// Hostile and real engine output for the report's parsers: none may panic,
// and each reads what is there.
func TestParsers(t *testing.T) {
	hostile := []string{"", "\x00\xff", strings.Repeat("#", 10000), "PID: x TASK: y", "$1 = ", ": : :", "#0 [zz] at", "0x 0x 0x"}
	for _, h := range hostile {
		crashFields(h)
		crashBacktrace(h)
		gdbValue(h)
		gdbFrames(h)
		crashSite(gdbFrames(h))
		gdbMissingSymbols(h)
		registerLines(h, 3)
		lastLines(h, 2)
		panicMessage(h, []string{h})
	}

	sys := crashFields("      KERNEL: /v\n     RELEASE: 6.1.0\nLOAD AVERAGE: 0.00, 0.01\n       PANIC: \"Kernel panic - not syncing: sysrq triggered crash\"\n[ 1.0] NOT: a field\n")
	if sys["RELEASE"] != "6.1.0" || sys["LOAD AVERAGE"] != "0.00, 0.01" || sys["[ 1.0] NOT"] != "" {
		t.Errorf("crashFields = %v", sys)
	}
	if p := panicMessage(sys["PANIC"], nil); p != "sysrq triggered crash" {
		t.Errorf("panic = %q", p)
	}
	if p := panicMessage("", []string{"[ 2.1] ---[ end Kernel panic - not syncing: Fatal exception ]---"}); p != "Fatal exception" {
		t.Errorf("panic from log = %q", p)
	}

	task, frames := crashBacktrace("PID: 1        TASK: ffff888004a00000  CPU: 0    COMMAND: \"init\"\n #0 [ffffc90000013b98] panic at ffffffff81a01f99\n #1 [ffffc90000013c18] sysrq_handle_crash at ffffffff81690926\n    RIP: 0\n")
	if task == nil || task.PID != 1 || task.Command != "init" || len(frames) != 2 {
		t.Fatalf("crashBacktrace = %+v %q", task, frames)
	}
	if f := firstInterestingKernelFrame(frames); f != "sysrq_handle_crash" {
		t.Errorf("kernel frame = %q", f)
	}

	gdbBT := "#0  __pthread_kill_implementation (no_tid=0) at ./nptl/pthread_kill.c:44\n" +
		"#1  0x00007f in __GI_raise (sig=6) at ../sysdeps/posix/raise.c:26\n" +
		"#2  0x00007f in abort () from /lib/x86_64-linux-gnu/libc.so.6\n" +
		"#3  0x000055 in main () at abort.c:6\n"
	if fn, loc := crashSite(gdbFrames(gdbBT)); fn != "main" || loc != "abort.c:6" {
		t.Errorf("crashSite = %q %q", fn, loc)
	}
	if fn, loc := crashSite([]string{"#0  0x0000 in ?? ()"}); fn != "??" || loc != "" {
		t.Errorf("crashSite without source = %q %q", fn, loc)
	}
	if v := gdbAddress(gdbValue("$2 = (void *) 0x0\n")); v != "0x0" {
		t.Errorf("si_addr = %q", v)
	}
	libs := gdbMissingSymbols("From                To                  Syms Read   Shared Object Library\n" +
		"0x00007f0 0x00007f1  Yes         /lib64/ld-linux-x86-64.so.2\n" +
		"0x00007f2 0x00007f3  Yes (*)     /lib/x86_64-linux-gnu/libc.so.6\n" +
		"0x00007f4 0x00007f5  No          /opt/libfoo.so\n(*): Shared library is missing debugging information.\n")
	if !slices.Equal(libs, []string{"/lib/x86_64-linux-gnu/libc.so.6 (no debugging info)", "/opt/libfoo.so (symbols not read)"}) {
		t.Errorf("missing symbols = %q", libs)
	}
	if regs := registerLines("rax            0x0                 0\nrip            0x5555 0x5555 <crash_here+4>\nnot a register\n", 5); !slices.Equal(regs, []string{"rax 0x0", "rip 0x5555"}) {
		t.Errorf("registers = %q", regs)
	}
}

func TestExecscriptQuoting(t *testing.T) {
	got := execscript("/s/a b.py", []string{`x"); import os; os.system("id`, "é\n"})
	want := `execscript("/s/a b.py", "x\"); import os; os.system(\"id", "é\n")`
	if got != want {
		t.Errorf("execscript = %s\nwant         %s", got, want)
	}
}

func TestFindScript(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.py"), []byte("#!/usr/bin/env drgn\n# Lists the tasks.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.py"), []byte("'''\nShows the panic.\n'''\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a script"), 0o644)
	scripts := FindScripts([]string{dir, t.TempDir()})
	if len(scripts) != 2 || scripts[0].Name != "a" || scripts[0].Description != "Shows the panic." || scripts[1].Description != "Lists the tasks." {
		t.Errorf("FindScripts = %+v", scripts)
	}
	if s, err := FindScript([]string{dir}, "b.py"); err != nil || s.Path != filepath.Join(dir, "b.py") {
		t.Errorf("FindScript(b.py) = %+v %v", s, err)
	}
	if _, err := FindScript([]string{dir}, "../etc/passwd"); !fault.Is(err, fault.KindUsage) || !strings.Contains(err.Error(), "(have: a, b)") {
		t.Errorf("FindScript of a path: %v", err)
	}
}
