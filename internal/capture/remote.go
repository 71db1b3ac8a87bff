package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/verdict"
)

// remoteRun is the host's side of a run whose Request.Remote is set: a
// job through the connection's agent, as a process (Running.proc).
type remoteRun struct {
	conn    *remote.Conn
	job     *remote.Process
	argv    []string // the program's, as asked
	timeout time.Duration

	once sync.Once
	res  *spawn.Result
	end  remote.End
	// lost says why the program's end is unknown: the connection (or the
	// host's agent) went before its status came back.
	lost string
}

// startRemote starts spec, which describes the program on the host, there;
// its output goes to combined in whole lines.
func startRemote(ctx context.Context, c *remote.Conn, spec spawn.Spec, combined io.Writer) (*remoteRun, error) {
	var stdin string
	if spec.Stdin != nil {
		b, err := io.ReadAll(spec.Stdin)
		if err != nil {
			return nil, fmt.Errorf("reading the program's input: %w", err)
		}
		stdin = string(b)
	}
	job, err := c.Start(ctx, remote.Job{Argv: spec.Argv, Dir: spec.Dir, Env: spec.Env, Unset: spec.Unset, Stdin: stdin,
		CoreDumps: spec.CoreDumps, Output: combined, Timeout: spec.Timeout, Grace: spec.Grace})
	if err != nil {
		return nil, err // a *spawn.StartError, as a local start's, or the connection's failure
	}
	return &remoteRun{conn: c, job: job, argv: spec.Argv, timeout: spec.Timeout}, nil
}

// Pid is the program's pid on the host.
func (r *remoteRun) Pid() int { return r.job.Pid() }

// Wait is the program's own end on the host, as a local run's Result.
func (r *remoteRun) Wait() (*spawn.Result, error) {
	end := r.job.Wait()
	r.once.Do(func() { r.end, r.res = end, r.result(end) })
	return r.res, nil
}

// Stop ends the program's group on the host and waits for its end.
func (r *remoteRun) Stop(grace time.Duration) (*spawn.Result, error) {
	r.job.Stop(grace)
	return r.Wait()
}

// result restates the job's end as a local run's Result.
func (r *remoteRun) result(end remote.End) *spawn.Result {
	out := &spawn.Result{Argv: r.argv, ExitCode: -1, TimedOut: end.TimedOut, Timeout: r.timeout, Cancelled: end.Cancelled,
		Started: end.Started, Duration: end.Duration}
	switch e := end.Exit; {
	case e != nil:
		ws := e.Status
		out.Pid, out.Path, out.Dir, out.OrphansKilled = e.Pid, e.Exe, e.Cwd, e.OrphansKilled
		out.Exited, out.CoreDumped = ws.Exited(), ws.CoreDump()
		out.ExitCode = ws.ExitStatus()
		if out.Signaled = ws.Signaled(); out.Signaled {
			out.Signal, out.SignalName = ws.Signal(), spawn.SignalName(ws.Signal())
		}
	case end.TimedOut || end.Cancelled:
		// Its group was being ended there when the connection went: the
		// host's agent (or its watchdog) ends it.
	default:
		out.Cancelled = true
		r.lost = fmt.Sprintf("%s while the program ran: how it ended there is unknown", end.Lost)
	}
	return out
}

// hostName is the host's name, "" for a local run (r nil).
func (r *remoteRun) hostName() string {
	if r == nil {
		return ""
	}
	return r.conn.Host
}

// lostLine is the verdict line of a run whose status never came back.
func (r *remoteRun) lostLine() string { return "INTERRUPTED — " + r.lost }

// exit is the agent's report (nil when there was none).
func (r *remoteRun) exit() *remote.Exit { return r.end.Exit }

// coreLookup prints "SIZE MTIME PATH" for each regular file a glob (or a
// plain path) names on the host.
const coreLookup = `use File::Glob ':bsd_glob'; for (bsd_glob($ARGV[0])) { my @s = stat; print "$s[7] $s[9] $_\n" if -f _ }`

// collectRemoteCore finds the core the program left on the host, by the
// host's core_pattern, and backtraces it there with the host's gdb.
func (o *Outcome) collectRemoteCore(ctx context.Context, req Request, r *remoteRun, res *spawn.Result) ([]verdict.Evidence, *verdict.Frame) {
	e := r.exit()
	crash := coredump.Crash{Pid: res.Pid, Exe: res.Path, Cwd: res.Dir, Uid: -1, Gid: -1, Signal: int(res.Signal),
		CoreDumped: res.CoreDumped, Started: res.Started, Ended: res.Started.Add(res.Duration)}
	if e == nil || e.CorePattern == "" {
		o.NoCore = fmt.Sprintf("the core_pattern of %s could not be read", r.conn.Host)
		return []verdict.Evidence{{Kind: "core_dump", Summary: "no core dump: " + o.NoCore}}, nil
	}
	core, err := findRemoteCore(ctx, r.conn, e.CorePattern, e.CoreUsesPid, crash)
	if err != nil {
		o.NoCore = err.Error()
		return []verdict.Evidence{{Kind: "core_dump", Summary: "no core dump: " + o.NoCore}}, nil
	}
	note := "on " + r.conn.Host
	o.Artifacts = []coredump.Artifact{{Kind: "core", Path: core, Note: note}}
	ev := []verdict.Evidence{{Kind: "core_dump", Path: core, Summary: note}}
	if req.NoBacktrace {
		return ev, nil
	}
	tr, err := RemoteBacktrace(ctx, r.conn, res.Path, core, req.BacktraceTimeout)
	if err != nil {
		return append(ev, verdict.Evidence{Kind: "backtrace", Summary: "no backtrace: " + err.Error()}), nil
	}
	o.Trace = tr
	ev = append(ev, verdict.Evidence{Kind: "backtrace", Summary: tr.Summary(req.ProjectDir)})
	if f, ok := tr.Crashing(req.ProjectDir); ok {
		return ev, &verdict.Frame{Function: f.Function, File: f.File, Line: f.Line}
	}
	return ev, nil
}

// RemoteBacktrace backtraces core with the gdb of the connection's host;
// exe is the program's path there ("" leaves it to gdb, which then knows
// no symbols). timeout <= 0 is coredump's default.
func RemoteBacktrace(ctx context.Context, c *remote.Conn, exe, core string, timeout time.Duration) (*coredump.Trace, error) {
	if timeout <= 0 {
		timeout = coredump.DefaultBacktraceTimeout
	}
	text, err := c.Run(ctx, coredump.GDBArgv("gdb", exe, core), timeout)
	tr, perr := coredump.ParseGDBBacktrace(text)
	if err != nil || perr != nil {
		return nil, errors.Join(err, perr)
	}
	return tr, nil
}

// findRemoteCore is the newest core at the place the host's core_pattern
// (pattern, usesPid) gives for the crash c, written since c started: one
// glob over the connection. c.Pid 0 (not known) matches any pid; c.Cwd is
// where a relative pattern puts the core.
func findRemoteCore(ctx context.Context, conn *remote.Conn, pattern string, usesPid bool, c coredump.Crash) (string, error) {
	where, _, err := coredump.ExpectedCore(pattern, usesPid, c, "")
	if err != nil {
		return "", fmt.Errorf("on %s: %w", conn.Host, err)
	}
	out, err := conn.Run(ctx, []string{"perl", "-e", coreLookup, where}, 30*time.Second)
	if err != nil {
		return "", fmt.Errorf("looking for the core on %s: %w", conn.Host, err)
	}
	best, bestTime := "", int64(0)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.SplitN(line, " ", 3)
		if len(f) != 3 {
			continue
		}
		mtime, _ := strconv.ParseInt(f[1], 10, 64)
		if mtime >= c.Started.Add(-time.Second).Unix() && mtime >= bestTime {
			best, bestTime = f[2], mtime
		}
	}
	if best == "" {
		return "", errors.New(coredump.NoFileCoreReason(c, pattern, where) + " (on " + conn.Host + ")")
	}
	return best, nil
}
