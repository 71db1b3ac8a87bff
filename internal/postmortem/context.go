package postmortem

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Context is the engine state that context-dependent commands read: crash's
// current task (PID, task address, CPU) or gdb/lldb's selected thread and
// frame. The zero Context is the engine's initial state (the panic task, or
// the crashing thread's innermost frame). Context values are comparable.
type Context struct {
	PID    int    `json:"pid,omitempty"`
	Task   string `json:"task,omitempty"` // crash task_struct address, hex without 0x
	CPU    int    `json:"cpu,omitempty"`
	Thread int    `json:"thread,omitempty"`
	Frame  int    `json:"frame,omitempty"`
	// Set reports that a command moved the context away from the initial one.
	Set bool `json:"set,omitempty"`
}

// Key is a short stable rendering for cache keys: "" for the initial
// context, "task=ffff888004a00000" for crash (the task decides PID and CPU),
// "thread=2,frame=1" for gdb and lldb.
func (c Context) Key() string {
	switch {
	case !c.Set:
		return ""
	case c.Task != "":
		return "task=" + c.Task
	}
	return "thread=" + strconv.Itoa(c.Thread) + ",frame=" + strconv.Itoa(c.Frame)
}

// Update returns the context after command ran on engine and printed output.
// The context changes only when the command is a context switch and its
// output confirms it, so a failed "set 99999" or "frame 40" (no such frame)
// leaves it as it was:
//   - crash: "set PID|TASK", "set -c CPU", "set -a ...", "set -p" print the new
//     context (PID:, TASK:, CPU: lines), which Update reads.
//   - gdb: "thread N" prints "[Switching to thread N ...]" and selects frame 0;
//     "frame N", "f N", "up [N]", "down [N]" print the frame line "#K ...".
//   - lldb: "thread select N" prints "* thread #N"; "frame select N", "f N",
//     "up", "down" print "frame #K".
//
// drgn keeps no implicit context, so Update returns c unchanged for it.
func (c Context) Update(engine Engine, command, output string) Context {
	args := strings.Fields(command)
	if len(args) == 0 {
		return c
	}
	switch engine {
	case EngineCrash:
		return c.updateCrash(args, output)
	case EngineGDB:
		return c.updateGDB(args, output)
	case EngineLLDB:
		return c.updateLLDB(args, output)
	}
	return c
}

var (
	crashPIDRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*PID:\s+(\d+)\s*$`) })
	crashTaskRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*TASK:\s+([0-9a-f]+)\b`) })
	crashCPURE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*CPU:\s+(\d+)\s*$`) })
)

// IsContextSwitch reports whether command changes the engine context (and so
// must never be served from a cache).
func IsContextSwitch(engine Engine, command string) bool {
	args := strings.Fields(command)
	if len(args) == 0 {
		return false
	}
	switch engine {
	case EngineCrash:
		return crashSetsContext(args)
	case EngineGDB:
		switch args[0] {
		case "thread", "t", "frame", "f", "up", "down", "select-frame":
			return true
		}
	case EngineLLDB:
		switch args[0] {
		case "thread", "frame", "f", "up", "down":
			return true
		}
	}
	return false
}

// crashSetsContext: "set" with a pid, a task address, -c, -a or -p. Plain
// "set" shows the context; "set scroll off" and friends set crash variables.
func crashSetsContext(args []string) bool {
	if args[0] != "set" || len(args) < 2 {
		return false
	}
	switch a := args[1]; {
	case a == "-c" || a == "-a" || a == "-p" || strings.HasPrefix(a, "-c"):
		return true
	case isDecimal(a), isHexAddr(a):
		return true
	}
	return false
}

func (c Context) updateCrash(args []string, output string) Context {
	if !crashSetsContext(args) {
		return c
	}
	pid, okPID := firstInt(crashPIDRE(), output)
	cpu, okCPU := firstInt(crashCPURE(), output)
	task := firstString(crashTaskRE(), output)
	if !okPID || task == "" {
		return c // an error message: the context did not move
	}
	if args[1] == "-p" {
		// Back to the panic task: the initial context, same cache entries.
		return Context{}
	}
	n := Context{PID: pid, Task: task, Set: true}
	if okCPU {
		n.CPU = cpu
	}
	return n
}

var (
	gdbSwitchRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[Switching to thread (\d+)`) })
	gdbFrameRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^#(\d+)\s`) })
	lldbThread  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\* thread #(\d+)`) })
	lldbFrameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*\*?\s*frame #(\d+)`) })
)

func (c Context) updateGDB(args []string, output string) Context {
	switch args[0] {
	case "thread", "t":
		if len(args) < 2 || !isDecimal(args[1]) {
			return c // "thread" alone shows; "thread apply ..." does not switch
		}
		if n, ok := firstInt(gdbSwitchRE(), output); ok {
			return Context{Thread: n, Set: true}
		}
	case "frame", "f", "up", "down", "select-frame":
		if len(args) >= 2 && !isDecimal(args[1]) {
			return c // "frame function x", "frame info": not a plain select
		}
		if n, ok := firstInt(gdbFrameRE(), output); ok {
			c.Frame, c.Set = n, true
			return c
		}
	}
	return c
}

func (c Context) updateLLDB(args []string, output string) Context {
	switch {
	case args[0] == "thread" && len(args) >= 3 && args[1] == "select":
		if n, ok := firstInt(lldbThread(), output); ok {
			return Context{Thread: n, Set: true}
		}
	case args[0] == "frame" && len(args) >= 2 && args[1] == "select",
		args[0] == "f", args[0] == "up", args[0] == "down":
		if n, ok := firstInt(lldbFrameRE(), output); ok {
			c.Frame, c.Set = n, true
			return c
		}
	}
	return c
}

func firstInt(re *regexp.Regexp, s string) (int, bool) {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

func firstString(re *regexp.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

func isDecimal(s string) bool {
	if s == "" || len(s) > 18 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// isHexAddr accepts a crash task address: hex digits, optional 0x.
func isHexAddr(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s) < 4 || len(s) > 16 {
		return false
	}
	for _, r := range strings.ToLower(s) {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}
