// Package doctor inspects the machine triage runs on: which debuggers, dump
// engines, toolchains and sanitizer runtimes are installed (with their
// versions), how the kernel
// will write core dumps, whether ptrace is restricted, and triage's own build.
// It changes nothing; every probe is bounded in time.
package doctor

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/toolpath"
)

// ToolStatus values.
const (
	StatusOK      = "ok"
	StatusMissing = "missing"
	StatusError   = "error"
)

// Tool is one external program triage can use.
type Tool struct {
	Name    string `json:"name" jsonschema:"program name"`
	Purpose string `json:"purpose" jsonschema:"what triage uses it for"`
	Status  string `json:"status" jsonschema:"ok, missing or error"`
	Path    string `json:"path,omitempty" jsonschema:"resolved path"`
	Version string `json:"version,omitempty" jsonschema:"first line of its version output"`
	Install string `json:"install,omitempty" jsonschema:"how to install it when missing"`
	// runtime: a sanitizer runtime, whose line says what it enables.
	runtime bool
}

// Build describes this triage binary.
type Build struct {
	Version   string `json:"version" jsonschema:"triage version"`
	GoVersion string `json:"go_version" jsonschema:"Go toolchain that built it"`
	Revision  string `json:"revision,omitempty" jsonschema:"VCS revision"`
	Modified  bool   `json:"modified,omitempty" jsonschema:"built from a modified tree"`
}

// Cores describes how the kernel writes core dumps for processes triage starts.
type Cores struct {
	Pattern   string `json:"core_pattern" jsonschema:"kernel.core_pattern"`
	UsesPID   bool   `json:"core_uses_pid" jsonschema:"kernel.core_uses_pid"`
	Handler   string `json:"handler" jsonschema:"file, systemd-coredump, apport, other pipe, or macOS"`
	LimitSoft string `json:"rlimit_core_soft" jsonschema:"RLIMIT_CORE soft limit of triage itself"`
	LimitHard string `json:"rlimit_core_hard" jsonschema:"RLIMIT_CORE hard limit (what children may be raised to)"`
	Note      string `json:"note,omitempty" jsonschema:"what this means for crash evidence"`
}

// Ptrace describes whether debuggers may attach.
type Ptrace struct {
	Scope   string `json:"yama_ptrace_scope" jsonschema:"kernel.yama.ptrace_scope, or none"`
	CapSys  bool   `json:"cap_sys_ptrace" jsonschema:"triage has CAP_SYS_PTRACE"`
	Summary string `json:"summary" jsonschema:"who may be attached to"`
}

// Report is the whole inspection.
type Report struct {
	OS     string `json:"os"`
	Arch   string `json:"arch"`
	Kernel string `json:"kernel,omitempty" jsonschema:"kernel release"`
	Build  Build  `json:"build"`
	Tools  []Tool `json:"tools"`
	Cores  Cores  `json:"cores"`
	Ptrace Ptrace `json:"ptrace"`
	Config Config `json:"config"`
	Store  Store  `json:"store"`
}

// Config describes the configuration in effect; the caller fills it.
type Config struct {
	Path      string   `json:"path,omitempty" jsonschema:"config file in effect, if any"`
	Warnings  []string `json:"warnings,omitempty" jsonschema:"problems found in it"`
	Workflows []string `json:"workflows" jsonschema:"enabled workflows"`
	Profile   string   `json:"profile" jsonschema:"active defaults profile"`
}

// Store describes the output store; the caller fills it.
type Store struct {
	Path    string `json:"path" jsonschema:"SQLite database path"`
	Status  string `json:"status" jsonschema:"ok, or what is wrong"`
	Outputs int    `json:"outputs,omitempty" jsonschema:"stored outputs"`
	Bytes   int64  `json:"bytes,omitempty" jsonschema:"stored bytes"`
}

type probe struct {
	names   []string // candidates, first found wins
	purpose string
	args    []string // version arguments; nil: derive
	install string
}

// probes lists what the doctor looks for (anew each time: where a tool is
// looked for can depend on $HOME).
func probes() []probe {
	return []probe{
		fromTool(toolpath.GDB, "debugger, core backtraces, userspace dumps", "--version"),
		fromTool(toolpath.LLDB, "LLDB command-line debugger backend, userspace dumps", "--version"),
		fromTool(toolpath.LLDBDAP, "DAP debugger backend for C, C++, Swift, Rust"),
		fromTool(toolpath.Dlv, "DAP debugger backend for Go", "version"),
		fromTool(toolpath.Crash, "kernel vmcore analysis", "--version"),
		fromTool(toolpath.Drgn, "programmable kernel and userspace dump analysis", "--version"),
		fromTool(toolpath.Valgrind, "memory errors where they happen (memcheck), no rebuild; run's check: memory and leaks", "--version"),
		{[]string{"qemu-system-x86_64"}, "generating test kernel vmcores", []string{"--version"}, "apt-get install qemu-system-x86"},
		{[]string{"xcodebuild"}, "Xcode builds and tests (macOS)", []string{"-version"}, "install Xcode (macOS only)"},
		{[]string{"xcrun"}, "simctl, xcresulttool, lldb-dap (macOS)", []string{"--version"}, "install Xcode command line tools (macOS only)"},
		{[]string{"go"}, "Go builds and tests", []string{"version"}, "https://go.dev/dl"},
		{[]string{"cargo"}, "Rust builds and tests", []string{"--version"}, "rustup"},
		{[]string{"cmake"}, "CMake builds, CTest", []string{"--version"}, "apt-get install cmake"},
		{[]string{"make"}, "Make builds", []string{"--version"}, "apt-get install make"},
		{[]string{"swift"}, "SwiftPM builds and tests", []string{"--version"}, "swift.org toolchain"},
		{[]string{"cc", "gcc", "clang"}, "C compiler", []string{"--version"}, "apt-get install gcc"},
	}
}

// fromTool probes a debugger or engine where every caller looks for it.
// With no version arguments, the version is derived from the name.
func fromTool(t toolpath.Tool, purpose string, versionArgs ...string) probe {
	return probe{t.Candidates(), purpose, versionArgs, t.Install}
}

// lldbNames lists base and base-N for the LLVM versions Debian and Homebrew ship.

// Inspect runs every probe concurrently, each bounded by timeout.
func Inspect(ctx context.Context, version string, timeout time.Duration) *Report {
	r := &Report{OS: runtime.GOOS, Arch: runtime.GOARCH, Build: buildInfo(version)}
	r.Kernel = strings.TrimSpace(readFile("/proc/sys/kernel/osrelease"))
	probes := probes()
	r.Tools = make([]Tool, len(probes))
	var wg sync.WaitGroup
	for i, p := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Tools[i] = inspectTool(ctx, p, timeout)
		}()
	}
	var sanitizers []Tool
	wg.Add(1)
	go func() {
		defer wg.Done()
		sanitizers = inspectSanitizers(ctx, timeout)
	}()
	r.Cores = inspectCores()
	r.Ptrace = inspectPtrace()
	wg.Wait()
	r.Tools = append(r.Tools, sanitizers...)
	return r
}

func inspectTool(ctx context.Context, p probe, timeout time.Duration) Tool {
	t := Tool{Name: p.names[0], Purpose: p.purpose, Status: StatusMissing}
	for _, n := range p.names {
		if path, err := exec.LookPath(n); err == nil {
			t.Name, t.Path = filepath.Base(n), path
			break
		}
	}
	if t.Path == "" {
		t.Install = p.install
		return t
	}
	t.Status = StatusOK
	if p.args == nil {
		// lldb-dap / lldb-vscode print no version; their LLVM version is in the name.
		if _, v, ok := strings.Cut(t.Name, "-vscode-"); ok {
			t.Version = "LLVM " + v
		} else if _, v, ok := strings.Cut(t.Name, "-dap-"); ok {
			t.Version = "LLVM " + v
		}
		return t
	}
	var out strings.Builder
	res, err := spawn.Run(ctx, spawn.Spec{Argv: append([]string{t.Path}, p.args...), Combined: &limitedWriter{w: &out, n: 4096}, Timeout: timeout})
	switch {
	case err != nil:
		t.Status, t.Version = StatusError, err.Error()
	case res.TimedOut:
		t.Status, t.Version = StatusError, fmt.Sprintf("no answer to %s within %v", strings.Join(p.args, " "), timeout)
	default:
		t.Version = firstVersionLine(out.String())
	}
	return t
}

// firstVersionLine picks the line that names the version ("Version: 1.2" of dlv).
func firstVersionLine(s string) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	first := ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if first == "" {
			first = line
		}
		if strings.HasPrefix(line, "Version:") {
			return first + " " + strings.TrimSpace(strings.TrimPrefix(line, "Version:"))
		}
	}
	return first
}

func buildInfo(version string) Build {
	b := Build{Version: version, GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	return b
}

func inspectCores() Cores {
	c := Cores{}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CORE, &lim); err == nil {
		c.LimitSoft, c.LimitHard = rlimitString(lim.Cur), rlimitString(lim.Max)
	}
	if runtime.GOOS == "darwin" {
		c.Handler = "macOS"
		c.Note = "crash reports are read from ~/Library/Logs/DiagnosticReports"
		return c
	}
	c.Pattern = strings.TrimSpace(readFile("/proc/sys/kernel/core_pattern"))
	c.UsesPID = strings.TrimSpace(readFile("/proc/sys/kernel/core_uses_pid")) == "1"
	switch {
	case c.Pattern == "":
		c.Handler, c.Note = "unknown", "kernel.core_pattern is unreadable"
	case strings.Contains(c.Pattern, "systemd-coredump"):
		c.Handler, c.Note = "systemd-coredump", "cores are fetched with coredumpctl"
	case strings.Contains(c.Pattern, "apport"):
		c.Handler, c.Note = "apport", "crash files are read from /var/crash"
	case strings.HasPrefix(c.Pattern, "|"):
		c.Handler, c.Note = "other pipe", "cores go to a handler triage cannot read; set kernel.core_pattern=core to capture them"
	default:
		c.Handler, c.Note = "file", "triage raises RLIMIT_CORE for the programs it runs and finds the core from this pattern"
	}
	if c.LimitHard == "0" {
		c.Note += "; the hard RLIMIT_CORE is 0, so no core can be written (raise it in the shell or service that starts triage)"
	}
	return c
}

func rlimitString(v uint64) string {
	// RLIM_INFINITY is all ones on Linux and 1<<63-1 on macOS.
	if v == ^uint64(0) || v == 1<<63-1 {
		return "unlimited"
	}
	return strconv.FormatUint(v, 10)
}

func inspectPtrace() Ptrace {
	p := Ptrace{Scope: "none"}
	if s := strings.TrimSpace(readFile("/proc/sys/kernel/yama/ptrace_scope")); s != "" {
		p.Scope = s
	}
	p.CapSys = hasCap(19) // CAP_SYS_PTRACE
	switch {
	case runtime.GOOS == "darwin":
		p.Summary = "macOS: attaching needs a signed debugger or an app built with get-task-allow"
	case p.CapSys:
		p.Summary = "any process may be attached to (CAP_SYS_PTRACE)"
	case p.Scope == "none" || p.Scope == "0":
		p.Summary = "processes of the same user may be attached to"
	case p.Scope == "1":
		p.Summary = "only descendants may be attached to (yama scope 1): launch under the debugger, or run `sysctl kernel.yama.ptrace_scope=0`"
	default:
		p.Summary = "attaching is restricted (yama scope " + p.Scope + "): launch under the debugger instead"
	}
	return p
}

// hasCap reports whether capability bit n is in this process's effective set.
func hasCap(n uint) bool {
	for _, line := range strings.Split(readFile("/proc/self/status"), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			bits, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && bits&(1<<n) != 0
		}
	}
	return false
}

func readFile(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	return string(b)
}

// limitedWriter keeps the first n bytes and discards the rest.
type limitedWriter struct {
	w interface{ WriteString(string) (int, error) }
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.WriteString(string(p[:k]))
		l.n -= k
	}
	return len(p), nil
}
