package wire

import (
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/postmortem/analysis"
)

// DumpSession describes a dump session.
type DumpSession struct {
	SessionID string    `json:"session_id" jsonschema:"the session"`
	Kernel    bool      `json:"kernel" jsonschema:"a kernel dump (else a process core)"`
	Dump      string    `json:"dump" jsonschema:"the vmcore or core"`
	Symbols   string    `json:"symbols" jsonschema:"the vmlinux or program"`
	SSHHost   string    `json:"ssh_host,omitempty" jsonschema:"remote host running the engines"`
	Info      *DumpInfo `json:"info,omitempty" jsonschema:"format, kernel release, build ID (local dumps)"`
	Refs      int       `json:"refs" jsonschema:"opens not yet closed"`
	Reused    bool      `json:"reused,omitempty" jsonschema:"the dump was already open"`
	Default   string    `json:"default_engine" jsonschema:"engine for commands without a prefix"`
	Engines   []Engine  `json:"engines" jsonschema:"engines and their state"`
}

// DumpCommand is one command's result.
type DumpCommand struct {
	SessionID string        `json:"session_id" jsonschema:"the session"`
	Engine    string        `json:"engine" jsonschema:"engine that ran the command"`
	Command   string        `json:"command" jsonschema:"the command as sent, prefix removed"`
	Route     string        `json:"route" jsonschema:"why that engine: explicit, prefix, crash-verb, python or default"`
	Cached    bool          `json:"cached,omitempty" jsonschema:"served from the cache (force re-runs)"`
	Error     string        `json:"error,omitempty" jsonschema:"the engine's error message when the command failed"`
	Context   EngineContext `json:"context" jsonschema:"engine context after the command (task, CPU, thread, frame)"`
	Notes     []string      `json:"notes,omitempty" jsonschema:"what happened to the engine (restarts)"`
	catalog.Captured
	// Commands are the results of a command of several lines, one a line
	// in order; the fields above then describe the whole (its first engine
	// error, the context after the last line) and carry no output.
	Commands []DumpCommand `json:"commands,omitempty" jsonschema:"one result a line, for a command of several lines"`
}

// PanicTask is the task a kernel backtrace belongs to.
type PanicTask struct {
	PID     int    `json:"pid"`
	Command string `json:"command"`
	Task    string `json:"task"`
	CPU     int    `json:"cpu"`
}

// DumpReport is the first look at a dump.
type DumpReport struct {
	SessionID string `json:"session_id" jsonschema:"the session"`
	Kernel    bool   `json:"kernel" jsonschema:"a kernel dump"`
	Verdict   string `json:"verdict" jsonschema:"one-line summary"`
	// Kernel dumps.
	Release     string     `json:"release,omitempty" jsonschema:"kernel release"`
	Uptime      string     `json:"uptime,omitempty" jsonschema:"uptime at the crash"`
	Panic       string     `json:"panic,omitempty" jsonschema:"panic message"`
	Tainted     string     `json:"tainted,omitempty" jsonschema:"taint mask and flags"`
	CPUs        string     `json:"cpus,omitempty" jsonschema:"CPU count"`
	LoadAverage string     `json:"load_average,omitempty" jsonschema:"load average"`
	Task        *PanicTask `json:"task,omitempty" jsonschema:"the panicking task"`
	LogTail     []string   `json:"log_tail,omitempty" jsonschema:"last kernel log lines"`
	// Process cores.
	Signal         string     `json:"signal,omitempty" jsonschema:"signal that killed the process"`
	FaultAddress   string     `json:"fault_address,omitempty" jsonschema:"faulting address (SIGSEGV, SIGBUS)"`
	Function       string     `json:"function,omitempty" jsonschema:"crashing function"`
	Location       string     `json:"location,omitempty" jsonschema:"file:line of the crash"`
	Registers      []string   `json:"registers,omitempty" jsonschema:"general registers of the crashed thread"`
	MissingSymbols []string   `json:"missing_symbols,omitempty" jsonschema:"shared libraries without debug symbols"`
	CrashSite      *CrashSite `json:"crash_site,omitempty" jsonschema:"source, arguments and locals of the first frame in the program's code; the fault address"`
	// Both.
	Backtrace []string `json:"backtrace,omitempty" jsonschema:"frames of the panicking task or crashed thread"`
	Problems  []string `json:"problems,omitempty" jsonschema:"engine commands that failed while building the report"`
	Next      []Hint   `json:"next,omitempty" jsonschema:"the dump_command calls that usually come next"`
	catalog.Captured
}

// DrgnScript is a drgn script found in a configured directory.
type DrgnScript struct {
	Name        string `json:"name" jsonschema:"name to run it by"`
	Path        string `json:"path" jsonschema:"file"`
	Description string `json:"description,omitempty" jsonschema:"first line of its docstring or leading comment"`
}

// DumpSessionOf converts a dump session.
func DumpSessionOf(s *postmortem.Session) DumpSession {
	t := s.Target
	out := DumpSession{SessionID: s.ID, Kernel: t.Kernel, Dump: t.Core, Symbols: t.Program, SSHHost: t.SSHHost,
		Info: DumpInfoOf(s.Dump), Refs: s.Refs(), Default: string(s.Router.DefaultEngine()), Engines: EnginesOf(s.EngineInfos())}
	if t.Kernel {
		out.Dump, out.Symbols = t.Vmcore, t.Vmlinux
	}
	return out
}

// DumpCommandOf converts one command's result on session sessionID.
func DumpCommandOf(sessionID string, r analysis.Result) DumpCommand {
	return DumpCommand{SessionID: sessionID, Engine: string(r.Engine), Command: r.Command, Route: r.Route,
		Cached: r.Cached, Error: r.Error, Context: EngineContextOf(r.Context), Notes: r.Notes, Captured: capturedOf(r.Output)}
}

// DumpReportOf converts the first look at session sessionID, with the
// calls that usually come next.
func DumpReportOf(sessionID string, r analysis.Report, next []Hint) DumpReport {
	out := DumpReport{SessionID: sessionID, Kernel: r.Kernel, Verdict: r.Verdict,
		Release: r.Release, Uptime: r.Uptime, Panic: r.Panic, Tainted: r.Tainted, CPUs: r.CPUs, LoadAverage: r.LoadAverage, LogTail: r.LogTail,
		Signal: r.Signal, FaultAddress: r.FaultAddress, Function: r.Function, Location: r.Location, Registers: r.Registers, MissingSymbols: r.MissingSymbols,
		CrashSite: CrashSiteOf(r.Site), Backtrace: r.Backtrace, Problems: r.Problems, Next: next, Captured: capturedOf(r.Output)}
	if t := r.Task; t != nil {
		out.Task = &PanicTask{PID: t.PID, Command: t.Command, Task: t.Task, CPU: t.CPU}
	}
	return out
}

// DrgnScriptsOf converts found scripts.
func DrgnScriptsOf(ss []analysis.Script) []DrgnScript {
	return list(ss, func(s analysis.Script) DrgnScript { return DrgnScript(s) })
}

func capturedOf(s analysis.Stored) catalog.Captured {
	return catalog.NewCaptured(s.ID, s.TotalLines, s.Truncated)
}
