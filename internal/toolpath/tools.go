package toolpath

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ErrNotFound is returned, wrapped with what to install, for a tool that is
// not there.
var ErrNotFound = errors.New("not found")

// Tool is a debugger or dump engine triage drives. Find is the one way each
// is found: by the debugger backends, the first-look backtrace, the hang
// stacks, the dump engines and the doctor.
type Tool struct {
	Name    string // as messages name it
	names   []string
	goBin   bool   // also look where go install puts it ($HOME/go/bin)
	env     string // names the one candidate when set
	Install string // what installs it
}

// The tools.
var (
	GDB  = Tool{Name: "gdb", names: []string{"gdb"}, Install: "apt-get install gdb"}
	LLDB = Tool{Name: "lldb", names: Names("lldb"), Install: "apt-get install lldb-16"}
	// LLDBDAP is lldb-dap, else lldb-vscode (its name to LLVM 17), each
	// plain then newest: lldb-dap-22 over lldb-vscode-16 where both are
	// installed, the adapter with more capabilities (data breakpoints,
	// readMemory, disassemble); lldb-vscode-16 where it is alone.
	// TRIAGE_DAP_ADAPTER (a path, or a name looked up in PATH) overrides
	// it: CI runs the debug suites under each adapter.
	LLDBDAP = Tool{Name: "lldb-dap", names: append(Names("lldb-dap"), Names("lldb-vscode")...), env: "TRIAGE_DAP_ADAPTER", Install: "apt-get install lldb-16, or lldb-22 for lldb-dap"}
	// LLDBVSCode is the older adapter only, for what it alone is tested on.
	LLDBVSCode = Tool{Name: "lldb-vscode", names: Names("lldb-vscode"), Install: "apt-get install lldb-16"}
	Dlv        = Tool{Name: "dlv", names: []string{"dlv"}, goBin: true, Install: "go install github.com/go-delve/delve/cmd/dlv@latest"}
	Crash      = Tool{Name: "crash", names: []string{"crash"}, Install: "apt-get install crash"}
	Drgn       = Tool{Name: "drgn", names: []string{"drgn"}, Install: "apt-get install python3-drgn"}
	Valgrind   = Tool{Name: "valgrind", names: []string{"valgrind"}, Install: "apt-get install valgrind"}
)

// Candidates lists where t is looked for, in order: names in PATH, then
// absolute paths.
func (t Tool) Candidates() []string {
	if v := os.Getenv(t.env); t.env != "" && v != "" {
		return []string{v}
	}
	c := append([]string(nil), t.names...)
	if home, err := os.UserHomeDir(); err == nil && t.goBin {
		c = append(c, filepath.Join(home, "go", "bin", t.names[0]))
	}
	return c
}

// HostCandidates lists the names t is looked for by on another host's
// PATH: the override is this host's.
func (t Tool) HostCandidates() []string {
	return append([]string(nil), t.names...)
}

// Find returns the path of the first candidate found, or ErrNotFound with
// what installs t.
func (t Tool) Find() (string, error) {
	p, _, err := t.FindName()
	return p, err
}

// FindName is Find, also returning the candidate that was found (lldb-16,
// lldb-vscode-16: the name carries the LLVM version).
func (t Tool) FindName() (path, name string, err error) {
	for _, n := range t.Candidates() {
		if p, err := exec.LookPath(n); err == nil {
			return p, n, nil
		}
	}
	if v := os.Getenv(t.env); t.env != "" && v != "" {
		return "", "", fmt.Errorf("%s %w: %s=%q is no executable (unset it to look for %s in PATH)", t.Name, ErrNotFound, t.env, v, t.Name)
	}
	return "", "", fmt.Errorf("%s %w in PATH (%s)", t.Name, ErrNotFound, t.Install)
}
