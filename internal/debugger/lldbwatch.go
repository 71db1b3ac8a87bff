package debugger

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// The lldb commands for watchpoints and signal stops, and readers of what
// lldb prints for them: the lldb command-line backend runs them, and the
// DAP backend over lldb-vscode (no data breakpoints) through evaluate.

var (
	lldbVarPathRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_]\w*(?:(?:\.|->)[A-Za-z_]\w*|\[\d+\])*$`) })
	lldbWatchSetRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Watchpoint created: Watchpoint (\d+):`) })
	lldbValueRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*(old|new) value: (.*)$`) })
	lldbWatchHitRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^watchpoint (\d+)`) })
	lldbSummaryRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)Summary: .* at ([^:\s]+):(\d+)`) })
)

// LLDBWatchCommand sets a watchpoint on expr: a variable path (a name, a
// field, an element) by `watchpoint set variable`, anything else as the
// address of the expression, which lldb refuses for an rvalue.
func LLDBWatchCommand(expr string, access Access) string {
	a := map[Access]string{AccessWrite: "write", AccessRead: "read", AccessReadWrite: "read_write"}[access]
	if lldbVarPathRE().MatchString(expr) {
		return fmt.Sprintf("watchpoint set variable -w %s -- %s", a, expr)
	}
	return fmt.Sprintf("watchpoint set expression -w %s -- %s", a, LLDBAddressOf(expr))
}

// LLDBWatchSet reads `watchpoint set`'s answer: lldb's watchpoint id and
// the value it read.
func LLDBWatchSet(out string) (id int, value string, err error) {
	m := lldbWatchSetRE().FindStringSubmatch(out)
	if m == nil {
		return 0, "", fmt.Errorf("watchpoint set: unexpected lldb output: %q", strings.TrimSpace(out))
	}
	id, _ = strconv.Atoi(m[1])
	_, value = LLDBWatchValues(out)
	return id, value, nil
}

// LLDBWatchValues reads the last "old value:" and "new value:" lines lldb
// prints when a watchpoint is set or hit.
func LLDBWatchValues(out string) (old, new string) {
	for _, m := range lldbValueRE().FindAllStringSubmatch(out, -1) {
		if m[1] == "old" {
			old = strings.TrimSpace(m[2])
		} else {
			new = strings.TrimSpace(m[2])
		}
	}
	return old, new
}

// LLDBWatchHit reads lldb's watchpoint id from a stop description
// ("watchpoint 1"): 0 when it is no watchpoint's.
func LLDBWatchHit(description string) int {
	if m := lldbWatchHitRE().FindStringSubmatch(strings.TrimSpace(description)); m != nil {
		id, _ := strconv.Atoi(m[1])
		return id
	}
	return 0
}

// LLDBWrittenAtCommand looks up the instruction before the pc: a
// watchpoint stops after the writing instruction, whose line may be the
// one before the pc's.
const LLDBWrittenAtCommand = "image lookup -a $pc-1"

// LLDBWrittenAt reads the file and line of LLDBWrittenAtCommand's answer.
func LLDBWrittenAt(out string) (string, int) {
	if m := lldbSummaryRE().FindStringSubmatch(out); m != nil {
		n, _ := strconv.Atoi(m[2])
		return m[1], n
	}
	return "", 0
}

// LLDBSignalCommand makes lldb stop (stop true) on sig, still passing it
// to the target on continue; stop false undoes it.
func LLDBSignalCommand(sig string, stop bool) string {
	return fmt.Sprintf("process handle -s %t -n %t -p true %s", stop, stop, sig)
}
