package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/crashsite"
	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/verdict"
)

// Request describes one run.
type Request struct {
	// Spec is the process to run. Its stdout and stderr are one pipe (as
	// 2>&1 gives), so the output is stored in the order the program wrote
	// it, and its last line (the verdict's "last line") is the same from
	// run to run; its Combined sink is set by Run (use Output). A Stdout
	// sink gets both streams, a Stderr sink nothing.
	Spec spawn.Spec
	// Output receives the combined stdout and stderr, line by line, in arrival
	// order. It may be nil.
	Output io.Writer
	// OutputID names where Output stores the stream, for hints.
	OutputID string
	// Program is the program as the user named it, for hints.
	Program string
	// ProjectDir is the project the program belongs to, when known: the
	// crash is reported at the first frame in its code (see crashsite).
	ProjectDir string
	// NoBacktrace skips the first-look backtrace of a found core.
	NoBacktrace bool
	// BacktraceTimeout bounds the debugger; 0 means coredump's default.
	BacktraceTimeout time.Duration
	// KeepCores, when set, is the directory where a core that the run
	// left in its working directory (the user's tree) is moved.
	KeepCores string
	// NoHangStacks: a timed-out run's stacks are not taken, because what
	// hangs is out of reach (xcodebuild's tests run in a simulator) and the
	// local process's stacks would only show it waiting.
	NoHangStacks bool
	// Stall, when positive, ends a local run early once its process group
	// has made no progress for that long (internal/stall): the stacks a
	// timeout takes, and a HUNG verdict of its own.
	Stall time.Duration
	// Limit names the time limit Spec.Timeout is, for a timed-out run's
	// verdict ("timeout_s", "the built-in limit; timeout_s raises it");
	// "" names none (limit.go).
	Limit string
	// Remote, when set, runs Spec on that host (remote.Conn.Start, through
	// the host's job agent): its Argv, Dir, Env, Unset, Stdin and CoreDumps
	// are the host's, Timeout and Grace apply there, the verdict is the
	// program's own end there, and its core is found by the host's
	// core_pattern and read there.
	Remote *remote.Conn
	// programArgv is the program's own argv when Spec runs it under a
	// checker (check.go): its hints name the program, not the checker.
	programArgv []string
}

// Outcome is what a run left behind.
type Outcome struct {
	Result    *spawn.Result
	Verdict   verdict.Verdict
	Artifacts []coredump.Artifact `json:"artifacts,omitempty"`
	// NoCore says why no core was found when a signal should have left one.
	NoCore string
	// Trace is the first-look backtrace of the core, when there was one.
	Trace *coredump.Trace
	// Site is the crash site: the core's (Trace.Site), else, for a crash
	// trace in the output (a Go or Rust panic), its frame's source.
	Site *crashsite.Site
	// NoDebugInfo names the file without debug info that keeps the crash
	// frame from having a file:line, when one does.
	NoDebugInfo *coredump.NoDebugInfo
	// Hang holds the stacks taken before a hung run was killed (see
	// hangWatch), nil when there was no such kill.
	Hang *hang.Report
	// Stalled is set when the stall watch ended the run (Request.Stall).
	Stalled *Stalled
	// Lines and Bytes count the combined output.
	Lines int
	Bytes int64
	// Memcheck is the rerun under valgrind memcheck of a crash that looked
	// like memory corruption (see memrerun.go); nil when there was none.
	Memcheck *MemcheckRun
	// coreInfo is what the core's notes say (its fault, its mappings),
	// when a core was read.
	coreInfo *coredump.CoreInfo
}

// Run runs the request to completion. The error is non-nil only when the
// process could not be started (a *spawn.StartError); everything that happens
// after start is in the Outcome.
func Run(ctx context.Context, req Request) (*Outcome, error) {
	r, err := Start(ctx, req)
	if err != nil {
		return nil, err
	}
	return r.Wait(ctx), nil
}

// process is a run's program: a local *spawn.Process, or a job on a host
// (remoteRun).
type process interface {
	Pid() int
	Wait() (*spawn.Result, error)
	Stop(grace time.Duration) (*spawn.Result, error)
}

// Running is a started run.
type Running struct {
	req   Request
	proc  process
	scan  *verdict.Scanner
	out   *fanout
	hang  *hangWatch
	stall *stallWatch            // nil when not watched
	host  *remoteRun             // nil for a local run
	why   atomic.Pointer[string] // why it was stopped (EndStuckAs), nil for a plain stop
}

// Start starts the request's process. ctx bounds the process's life as in
// spawn.Start.
func Start(ctx context.Context, req Request) (*Running, error) {
	scan := verdict.NewScanner()
	spec := req.Spec
	sinks := []io.Writer{scan}
	if req.Output != nil {
		sinks = append(sinks, req.Output)
	}
	out := newFanout(sinks...)
	hw := newHangWatch(out)
	spec.Combined = io.MultiWriter(hw.tap, out)
	if req.Remote != nil {
		// The stacks of a hung job are the host's, out of reach here.
		req.NoHangStacks = true
		host, err := startRemote(ctx, req.Remote, spec, spec.Combined)
		if err != nil {
			out.Close()
			return nil, err
		}
		return &Running{req: req, proc: host, scan: scan, out: out, hang: hw, host: host}, nil
	}
	spec.MergeStderr = true
	if !req.NoHangStacks {
		spec.OnHang = hw.onHang
	}
	var sw *stallWatch
	if req.Stall > 0 {
		sw = watchStalls(&spec, req.Stall)
	}
	p, err := spawn.Start(ctx, spec)
	if err != nil {
		out.Close()
		return nil, err
	}
	return &Running{req: req, proc: p, scan: scan, out: out, hang: hw, stall: sw}, nil
}

// Flush passes the output read so far on to Request.Output (which otherwise
// receives it in blocks of 256 KiB).
func (r *Running) Flush() { r.out.Flush() }

// Pid is the program's pid (on its host, for a remote run).
func (r *Running) Pid() int { return r.proc.Pid() }

// End ends the program (SIGTERM to its group, SIGKILL after grace) and
// waits for its end; Wait, in the goroutine that runs it, classifies the
// run.
func (r *Running) End(grace time.Duration) { _, _ = r.proc.Stop(grace) }

// Wait waits for the process to end, then gathers crash evidence and
// classifies the run; ctx bounds the evidence gathering.
func (r *Running) Wait(ctx context.Context) *Outcome {
	res, _ := r.proc.Wait()
	return r.conclude(ctx, res)
}

// Stop ends the process (SIGTERM to its group, SIGKILL after grace) and
// classifies the run.
func (r *Running) Stop(ctx context.Context, grace time.Duration) *Outcome {
	res, _ := r.proc.Stop(grace)
	return r.conclude(ctx, res)
}

func (r *Running) conclude(ctx context.Context, res *spawn.Result) *Outcome {
	req, scan := r.req, r.scan
	r.out.Close() // spawn delivered everything before Wait returned
	scan.Flush()
	out := &Outcome{Result: res, Lines: scan.Lines(), Bytes: scan.Bytes()}
	var evidence []verdict.Evidence
	var frame *verdict.Frame
	switch {
	case !res.Signaled || !dumpsCore(res):
	case req.programArgv != nil:
		evidence = checkedCore()
	case r.host != nil:
		evidence, frame = out.collectRemoteCore(ctx, req, r.host, res)
	default:
		evidence, frame = out.collectCore(ctx, req, res)
	}
	hangRep, hangReason := r.hang.conclude()
	if hangRep != nil {
		out.Hang = hangRep
		evidence = append(evidence, hangEvidence(hangRep, req.OutputID))
	}
	out.Verdict = verdict.Classify(verdict.Input{
		Result:     req.asRan(res),
		Scan:       scan,
		Evidence:   evidence,
		CrashFrame: frame,
		Program:    req.Program,
		ProjectDir: req.ProjectDir,
		OutputID:   req.OutputID,
		SSHHost:    r.host.hostName(),
	})
	if r.host != nil && r.host.lost != "" {
		out.Verdict.Line = r.host.lostLine()
	}
	if res.TimedOut && !res.Stalled && out.Verdict.Status == verdict.StatusTimeout {
		out.Verdict.Line = NameLimit(out.Verdict.Line, req.Limit)
	}
	switch {
	case res.Stalled && r.stall != nil:
		out.Stalled = r.stall.stalled()
		stalledVerdict(&out.Verdict, out.Stalled, hangRep)
	case hangRep != nil:
		out.Verdict.Line = withHang(out.Verdict.Line, hangRep, hangReason)
	}
	out.Verdict.Line = r.stoppedWhy(out.Verdict, res)
	if nd := out.NoDebugInfo; nd != nil {
		out.Verdict.Line = WithNoDebugInfo(out.Verdict.Line, nd)
	}
	if r.host == nil {
		out.Site = siteOf(out, req.ProjectDir, res.Dir)
	}
	return out
}

// siteOf is the crash site of a local run: the core's, else the source
// around the frame the verdict names from the output's trace, resolved
// against the project and the run's directory (a Rust panic's
// "src/main.rs").
func siteOf(o *Outcome, projectDir, runDir string) *crashsite.Site {
	if o.Trace != nil && o.Trace.Site != nil {
		return o.Trace.Site
	}
	f := o.Verdict.CrashFrame
	if o.Verdict.Status != verdict.StatusCrash || f == nil {
		return nil
	}
	return crashsite.FromTrace(f.Function, f.File, f.Line, projectDir, runDir)
}

// WithNoDebugInfo says in a crash verdict line which file has no debug
// info, after the crash site and before any " — " detail: "CRASHED
// (SIGSEGV) in crash_here (no debug info in segv) — core dump captured".
func WithNoDebugInfo(line string, nd *coredump.NoDebugInfo) string {
	clause := " (no debug info in " + filepath.Base(nd.File) + ")"
	if head, rest, ok := strings.Cut(line, " — "); ok {
		return head + clause + " — " + rest
	}
	return line + clause
}

// dumpsCore reports whether the signal's default action dumps core, or the
// kernel says it did.
func dumpsCore(res *spawn.Result) bool {
	if res.CoreDumped {
		return true
	}
	switch res.SignalName {
	case "SIGSEGV", "SIGBUS", "SIGABRT", "SIGILL", "SIGFPE", "SIGTRAP", "SIGSYS", "SIGQUIT", "SIGXCPU", "SIGXFSZ":
		return true
	}
	return false
}

// collectCore finds the core of a crashed run and backtraces it.
func (o *Outcome) collectCore(ctx context.Context, req Request, res *spawn.Result) ([]verdict.Evidence, *verdict.Frame) {
	arts, err := coredump.Find(ctx, coredump.CrashFromResult(res))
	if err != nil {
		var nc *coredump.NoCoreError
		if errors.As(err, &nc) || errors.Is(err, coredump.ErrNoCore) {
			o.NoCore = err.Error()
		} else {
			o.NoCore = fmt.Sprintf("looking for the core: %v", err)
		}
		return []verdict.Evidence{{Kind: "core_dump", Summary: "no core dump: " + o.NoCore}}, nil
	}
	if req.KeepCores != "" {
		dir := res.Dir
		if dir == "" {
			dir, _ = os.Getwd()
		}
		arts = KeepCores(arts, req.KeepCores, []string{dir})
	}
	o.Artifacts = arts
	var ev []verdict.Evidence
	var core string
	for _, a := range arts {
		ev = append(ev, verdict.Evidence{Kind: evidenceKind(a.Kind), Path: a.Path, Summary: a.Note})
		if a.Kind == "core" && core == "" {
			core = a.Path
		}
	}
	if core == "" || req.NoBacktrace {
		return ev, nil
	}
	tr, err := coredump.Backtrace(ctx, res.Path, core, coredump.BacktraceOptions{Timeout: req.BacktraceTimeout, ProjectDir: req.ProjectDir})
	if err != nil {
		return append(ev, verdict.Evidence{Kind: "backtrace", Summary: "no backtrace: " + err.Error()}), nil
	}
	o.Trace = tr
	ev = append(ev, verdict.Evidence{Kind: "backtrace", Summary: tr.Summary(req.ProjectDir)})
	if ci, err := coredump.OpenCore(core); err == nil {
		o.coreInfo = ci
		if o.NoDebugInfo = tr.MissingDebugInfo(ci, res.Path, req.ProjectDir); o.NoDebugInfo != nil {
			ev = append(ev, verdict.Evidence{Kind: "debug_info", Path: o.NoDebugInfo.File, Summary: o.NoDebugInfo.Reason()})
		}
	}
	if f, ok := tr.Crashing(req.ProjectDir); ok {
		return ev, &verdict.Frame{Function: f.Function, File: f.File, Line: f.Line}
	}
	return ev, nil
}

func evidenceKind(artifact string) string {
	switch artifact {
	case "core", "coredumpctl", "apport":
		return "core_dump"
	default:
		return "crash_report"
	}
}

// KeepCores moves the core files among arts that lie in one of the user's
// directories (under) into dir, and returns arts with their new paths and a
// note of where each was. A core that cannot be moved stays, with a note
// saying why. Cores elsewhere (an absolute core_pattern directory,
// systemd-coredump) are left where the system keeps them.
func KeepCores(arts []coredump.Artifact, dir string, under []string) []coredump.Artifact {
	out := make([]coredump.Artifact, len(arts))
	for i, a := range arts {
		out[i] = a
		if a.Kind != "core" || !inAny(a.Path, under) {
			continue
		}
		pid := 0
		if ci, err := coredump.OpenCore(a.Path); err == nil {
			pid = ci.Pid
		}
		kept, err := coredump.Keep(a.Path, dir, pid)
		if err != nil {
			out[i].Note = joinNote(a.Note, "left in place: "+err.Error())
			continue
		}
		out[i].Path = kept
		out[i].Note = joinNote(a.Note, "moved from "+a.Path+" out of the project")
	}
	return out
}

// inAny reports whether path lies under one of dirs.
func inAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if rel, err := filepath.Rel(d, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
