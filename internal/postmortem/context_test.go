package postmortem

import "testing"

// Output captured from crash 8.0.2 on the make-vmcore.sh dump.
const (
	crashSetPID1 = `    PID: 1
COMMAND: "init"
   TASK: ffff888004a00000  [THREAD_INFO: ffff888004a00000]
    CPU: 0
  STATE: TASK_RUNNING (PANIC)
`
	crashSetPID0 = `    PID: 0
COMMAND: "swapper/0"
   TASK: ffffffff82a1aa40  [THREAD_INFO: ffffffff82a1aa40]
    CPU: 0
  STATE: TASK_RUNNING 
`
	crashBadPID  = "set: invalid task or pid value: 99999\n"
	crashBadCPU  = "set: invalid cpu number: system has only 1 cpu\n"
	crashScroll  = "scroll: off (none)\n"
	gdbThread2   = "[Switching to thread 2 (Thread 0x7f2b6d7fe6c0 (LWP 4242))]\n#0  0x00007f2b6e8a1d3f in clock_nanosleep () from /lib/x86_64-linux-gnu/libc.so.6\n"
	gdbFrame1    = "#1  0x0000555555555161 in main () at seg.c:5\n5\t  return *p;\n"
	gdbNoFrame   = "No frame at level 40.\n"
	gdbNoThread  = "Invalid thread ID: 9\n"
	lldbThread2  = "* thread #2, name = 'worker', stop reason = signal SIGSEGV\n    frame #0: 0x0000555555555161 a.out`main at seg.c:5\n"
	lldbFrame1   = "frame #1: 0x00007ffff7df0d90 libc.so.6`__libc_start_call_main + 128\n"
	lldbBadFrame = "error: Frame index (40) out of range.\n"
)

func TestContextUpdate(t *testing.T) {
	pid1 := Context{PID: 1, Task: "ffff888004a00000", CPU: 0, Set: true}
	pid0 := Context{PID: 0, Task: "ffffffff82a1aa40", CPU: 0, Set: true}
	th2 := Context{Thread: 2, Set: true}
	tests := []struct {
		name    string
		start   Context
		engine  Engine
		command string
		output  string
		want    Context
	}{
		{"crash set pid", Context{}, EngineCrash, "set 1", crashSetPID1, pid1},
		{"crash set task", Context{}, EngineCrash, "set ffffffff82a1aa40", crashSetPID0, pid0},
		{"crash set 0x task", Context{}, EngineCrash, "set 0xffffffff82a1aa40", crashSetPID0, pid0},
		{"crash set -c", pid0, EngineCrash, "set -c 0", crashSetPID1, pid1},
		{"crash set -c0", pid0, EngineCrash, "set -c0", crashSetPID1, pid1},
		{"crash set -p back to panic task", pid0, EngineCrash, "set -p", crashSetPID1, Context{}},
		{"crash bad pid keeps context", pid0, EngineCrash, "set 99999", crashBadPID, pid0},
		{"crash bad cpu keeps context", pid0, EngineCrash, "set -c 5", crashBadCPU, pid0},
		{"crash set shows only", pid0, EngineCrash, "set", crashSetPID1, pid0},
		{"crash variable", pid0, EngineCrash, "set scroll off", crashScroll, pid0},
		{"crash bt is no switch", pid0, EngineCrash, "bt", crashSetPID1, pid0},
		{"crash output lookalike in a non-set command", Context{}, EngineCrash, "ps", crashSetPID1, Context{}},
		{"gdb thread", Context{Frame: 3, Set: true}, EngineGDB, "thread 2", gdbThread2, th2},
		{"gdb thread alone shows", th2, EngineGDB, "thread", gdbThread2, th2},
		{"gdb thread apply", th2, EngineGDB, "thread apply all bt", gdbThread2, th2},
		{"gdb bad thread", th2, EngineGDB, "thread 9", gdbNoThread, th2},
		{"gdb frame", th2, EngineGDB, "frame 1", gdbFrame1, Context{Thread: 2, Frame: 1, Set: true}},
		{"gdb f", Context{}, EngineGDB, "f 1", gdbFrame1, Context{Frame: 1, Set: true}},
		{"gdb up", Context{}, EngineGDB, "up", gdbFrame1, Context{Frame: 1, Set: true}},
		{"gdb frame function", th2, EngineGDB, "frame function main", gdbFrame1, th2},
		{"gdb bad frame", th2, EngineGDB, "frame 40", gdbNoFrame, th2},
		{"lldb thread select", Context{}, EngineLLDB, "thread select 2", lldbThread2, th2},
		{"lldb frame select", th2, EngineLLDB, "frame select 1", lldbFrame1, Context{Thread: 2, Frame: 1, Set: true}},
		{"lldb bad frame", th2, EngineLLDB, "frame select 40", lldbBadFrame, th2},
		{"lldb thread list", th2, EngineLLDB, "thread list", lldbThread2, th2},
		{"drgn has no context", pid0, EngineDrgn, "set 1", crashSetPID1, pid0},
		{"empty command", pid0, EngineCrash, "   ", crashSetPID1, pid0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.start.Update(tt.engine, tt.command, tt.output); got != tt.want {
				t.Errorf("Update = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestContextKey(t *testing.T) {
	tests := []struct {
		ctx  Context
		want string
	}{
		{Context{}, ""},
		{Context{PID: 1, Task: "ffff888004a00000", Set: true}, "task=ffff888004a00000"},
		{Context{Thread: 2, Set: true}, "thread=2,frame=0"},
		{Context{Thread: 2, Frame: 1, Set: true}, "thread=2,frame=1"},
		{Context{Frame: 1, Set: true}, "thread=0,frame=1"},
	}
	for _, tt := range tests {
		if got := tt.ctx.Key(); got != tt.want {
			t.Errorf("%+v.Key() = %q, want %q", tt.ctx, got, tt.want)
		}
	}
}

func TestIsContextSwitch(t *testing.T) {
	tests := []struct {
		engine  Engine
		command string
		want    bool
	}{
		{EngineCrash, "set 1", true},
		{EngineCrash, "set ffff888004a00000", true},
		{EngineCrash, "set -c 1", true},
		{EngineCrash, "set -p", true},
		{EngineCrash, "set -a 1", true},
		{EngineCrash, "set", false},
		{EngineCrash, "set scroll off", false},
		{EngineCrash, "set radix 16", false},
		{EngineCrash, "set abc", false},
		{EngineCrash, "bt", false},
		{EngineGDB, "thread 2", true},
		{EngineGDB, "frame 1", true},
		{EngineGDB, "bt", false},
		{EngineLLDB, "thread select 1", true},
		{EngineLLDB, "up", true},
		{EngineDrgn, "set 1", false},
		{EngineCrash, "", false},
	}
	for _, tt := range tests {
		if got := IsContextSwitch(tt.engine, tt.command); got != tt.want {
			t.Errorf("IsContextSwitch(%s, %q) = %v, want %v", tt.engine, tt.command, got, tt.want)
		}
	}
}
