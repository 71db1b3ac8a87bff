package remote

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// Job is a program to run on a host, as spawn.Spec describes a local one.
// Paths are the host's.
type Job struct {
	Argv  []string
	Dir   string // "" is the remote user's home directory
	Env   map[string]string
	Unset []string
	Stdin string
	// CoreDumps leaves the program's core size limit at its hard limit,
	// as spawn.Spec.CoreDumps does; else it is 0.
	CoreDumps bool
	// Output receives the program's stdout and stderr as one stream, in
	// whole lines (spawn.Spec.Combined's rule, MaxLineLen included). It is
	// written from the job's own goroutine: a slow one holds up this job's
	// output only. Nil discards it.
	Output io.Writer
	// Timeout bounds the job (0: none); Grace is the delay between its
	// group's SIGTERM and SIGKILL on a timeout, a cancellation or Stop (0:
	// spawn.DefaultGrace).
	Timeout, Grace time.Duration
}

// Exit is how a job's program ended on its host, as the agent saw it.
type Exit struct {
	Pid    int
	Status syscall.WaitStatus
	Exe    string // the program's absolute path on the host
	Cwd    string
	// CorePattern and CoreUsesPid are the host's core settings, read when
	// the program was killed by a signal.
	CorePattern string
	CoreUsesPid bool
	// OrphansKilled: what the program left in its process group was
	// killed after it exited.
	OrphansKilled bool
	// ExecError says why the program could not be started (not found, not
	// executable, a bad working directory); the other fields are empty.
	ExecError string
}

// End is how a job ended, seen from here.
type End struct {
	// Exit is the agent's report; nil when Lost is set.
	Exit *Exit
	// Lost (a *LostError) says why the job's end is unknown: its
	// connection, or its host's agent, went first.
	Lost error
	// TimedOut: Job.Timeout or the context's deadline passed; Cancelled:
	// the context was cancelled or Stop was called. Either way the job's
	// group was ended on the host.
	TimedOut, Cancelled bool
	Started             time.Time
	Duration            time.Duration
}

// Process is a job running on a host through the connection's agent. Its
// goroutine (run) passes the job's output to Job.Output, grants the agent
// credit for what it passed on, and ends the job's group on a timeout, a
// cancellation or Stop.
type Process struct {
	a     *agent
	id    uint32
	job   Job
	begun time.Time

	pid      int // set before startc closes
	startc   chan struct{}
	startOne sync.Once

	mu    sync.Mutex
	queue []event       // guarded by mu
	wake  chan struct{} // 1-buffered: the queue has events
	stopc chan time.Duration

	pending []byte // a line not yet ended (run's own)
	outErr  error  // Output failed: the rest is dropped (run's own)
	end     End    // set before done closes
	done    chan struct{}
}

// event is one thing the agent said about a job, or its session's end.
type event struct {
	out  []byte
	exit *Exit
	lost error
}

// Start runs job on the connection's host through its job agent (started
// on first use, and again after it ended) and returns once the program
// runs there; ctx bounds the job's life as in spawn.Start. A program that
// cannot start there is a *spawn.StartError naming the host.
func (c *Conn) Start(ctx context.Context, job Job) (*Process, error) {
	if err := c.checkJob(job); err != nil {
		return nil, err
	}
	if job.Grace <= 0 {
		job.Grace = spawn.DefaultGrace
	}
	p := &Process{job: job, begun: time.Now(), startc: make(chan struct{}), wake: make(chan struct{}, 1),
		stopc: make(chan time.Duration), done: make(chan struct{})}
	if err := c.hand(ctx, p); err != nil {
		return nil, err
	}
	go p.run(ctx)
	if p.awaitStart() {
		return p, nil
	}
	if p.end.Lost != nil {
		// The agent had the start frame: the program may have run there
		// before the session went, so the job's end is unknown, not a
		// start that failed.
		return p, nil
	}
	return nil, c.execError(job.Argv[0], p.end.Exit)
}

// hand gives p to the connection's agent. An agent whose session ended
// before it had the start frame ran nothing: the start is tried once more
// with a new agent, unless the connection itself went.
func (c *Conn) hand(ctx context.Context, p *Process) error {
	for retried := false; ; retried = true {
		a, err := c.jobAgent(ctx)
		if err != nil {
			return err
		}
		p.a = a
		if p.id, err = a.add(p); err == nil {
			if err = a.send('S', p.id, encodeJob(p.job)); err == nil {
				return nil
			}
			a.drop(p.id)
		}
		lost := a.waitEnded(ctx)
		var le *LostError
		if retried || (errors.As(lost, &le) && le.Conn) {
			return fmt.Errorf("%w before the program was sent there: nothing ran (the next call reconnects)", lost)
		}
	}
}

// checkJob applies a local start's rules to a job.
func (c *Conn) checkJob(job Job) error {
	if len(job.Argv) == 0 || job.Argv[0] == "" {
		return &spawn.StartError{Kind: spawn.KindEmptyArgv, Detail: "argv is empty: give the program to run on " + c.Host + " as argv[0]"}
	}
	for _, s := range append([]string{job.Dir}, job.Argv...) {
		if strings.IndexByte(s, 0) >= 0 {
			return &spawn.StartError{Kind: spawn.KindOther, Program: job.Argv[0], Detail: "on " + c.Host + ": " + strconv.Quote(s) + " contains a NUL byte"}
		}
	}
	return spawn.CheckEnv(job.Argv[0], job.Env, job.Unset)
}

// execError is the agent's word on a program that could not start.
func (c *Conn) execError(prog string, e *Exit) error {
	kind, why := spawn.KindNotFound, "the program did not start"
	if e != nil && e.ExecError != "" {
		why = e.ExecError
		switch {
		case strings.HasPrefix(why, "working directory"):
			kind = spawn.KindBadDir
		case strings.HasSuffix(why, "is a directory"):
			kind = spawn.KindIsDirectory
		case strings.HasSuffix(why, "not executable"), strings.HasSuffix(why, "Permission denied"):
			kind = spawn.KindNotExecutable
		}
	}
	return &spawn.StartError{Kind: kind, Program: prog, Detail: "on " + c.Host + ": " + why}
}

// encodeJob is a start frame's payload: length-prefixed strings.
func encodeJob(job Job) []byte {
	core := "0"
	if job.CoreDumps {
		core = "1"
	}
	keys := make([]string, 0, len(job.Env))
	for k := range job.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	f := []string{job.Dir, core, job.Stdin, strconv.Itoa(len(keys))}
	for _, k := range keys {
		f = append(f, k+"="+job.Env[k])
	}
	f = append(f, strconv.Itoa(len(job.Unset)))
	f = append(append(f, job.Unset...), job.Argv...)
	var b []byte
	for _, s := range f {
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b
}

// Pid is the program's pid on the host (its process group's).
func (p *Process) Pid() int { return p.pid }

// Done is closed once the job has ended and its output was passed on.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits for the job's end.
func (p *Process) Wait() End {
	<-p.done
	return p.end
}

// Stop ends the job's group on the host (SIGTERM, SIGKILL after grace;
// <= 0 is Job.Grace) and waits for its end. Cancelled is set unless the
// job had ended.
func (p *Process) Stop(grace time.Duration) End {
	select {
	case p.stopc <- grace:
	case <-p.done:
	}
	return p.Wait()
}

// awaitStart waits for the job to start or end, and says whether it
// started. A program that started and has already ended did start: when
// both have happened a select picks either, so the end is looked at twice.
// (The start is marked before the end is: the agent's frames come in
// order.)
func (p *Process) awaitStart() bool {
	select {
	case <-p.startc:
		return true
	case <-p.done:
	}
	select {
	case <-p.startc:
		return true
	default:
		return false
	}
}

func (p *Process) started(pid int) {
	p.startOne.Do(func() {
		p.pid = pid
		close(p.startc)
	})
}

// push queues an event for run; it never blocks (the agent's own credit
// bounds the queue).
func (p *Process) push(ev event) {
	p.mu.Lock()
	p.queue = append(p.queue, ev)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// lose ends the job as lost: its session ended first.
func (p *Process) lose(err error) { p.push(event{lost: err}) }

// run is the job's goroutine until its end.
func (p *Process) run(ctx context.Context) {
	var timeoutC <-chan time.Time
	if p.job.Timeout > 0 {
		t := time.NewTimer(p.job.Timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	ctxDone, ending := ctx.Done(), false
	terminate := func(grace time.Duration) {
		if !ending {
			ending = true
			_ = p.a.send('K', p.id, []byte(strconv.FormatInt(grace.Milliseconds(), 10)))
		}
	}
	for {
		select {
		case <-p.wake:
			if p.drain() {
				return
			}
		case <-timeoutC:
			p.end.TimedOut = true
			terminate(p.job.Grace)
		case <-ctxDone:
			ctxDone = nil
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				p.end.TimedOut = true
			} else {
				p.end.Cancelled = true
			}
			terminate(p.job.Grace)
		case g := <-p.stopc:
			p.end.Cancelled = true
			if g <= 0 {
				g = p.job.Grace
			}
			terminate(g)
		}
	}
}

// drain passes the queued events on, and reports whether the job ended.
func (p *Process) drain() bool {
	p.mu.Lock()
	q := p.queue
	p.queue = nil
	p.mu.Unlock()
	credit := 0
	for _, ev := range q {
		if ev.exit != nil || ev.lost != nil {
			p.finish(ev)
			return true
		}
		p.deliver(ev.out)
		credit += len(ev.out)
	}
	if credit > 0 {
		_ = p.a.send('C', p.id, []byte(strconv.Itoa(credit)))
	}
	return false
}

func (p *Process) finish(ev event) {
	if len(p.pending) > 0 {
		p.write(append(p.pending, '\n')) // an unterminated last line
	}
	p.end.Exit, p.end.Lost = ev.exit, ev.lost
	p.end.Started, p.end.Duration = p.begun, time.Since(p.begun)
	close(p.done)
}

// deliver writes the whole lines of b to Output, holding back the last
// one until it ends (spawn's Combined rule).
func (p *Process) deliver(b []byte) {
	nl := bytes.LastIndexByte(b, '\n')
	if nl < 0 {
		p.pending = append(p.pending, b...)
		for len(p.pending) >= spawn.MaxLineLen {
			p.write(append(p.pending[:spawn.MaxLineLen:spawn.MaxLineLen], '\n'))
			p.pending = append(p.pending[:0], p.pending[spawn.MaxLineLen:]...)
		}
		return
	}
	if len(p.pending) > 0 {
		p.pending = append(p.pending, b[:nl+1]...)
		p.write(p.pending)
		p.pending = p.pending[:0]
	} else {
		p.write(b[:nl+1])
	}
	p.pending = append(p.pending, b[nl+1:]...)
}

func (p *Process) write(b []byte) {
	if p.job.Output != nil && p.outErr == nil {
		_, p.outErr = p.job.Output.Write(b)
	}
}

// parseExit reads an X frame's "\x1fKEY=VALUE" fields.
func parseExit(fields []byte) *Exit {
	e := &Exit{}
	for _, kv := range strings.Split(string(fields), "\x1f") {
		k, v, _ := strings.Cut(kv, "=")
		v = strings.TrimSpace(v)
		switch k {
		case "pid":
			e.Pid, _ = strconv.Atoi(v)
		case "status":
			n, _ := strconv.ParseUint(v, 10, 32)
			e.Status = syscall.WaitStatus(n)
		case "exe":
			e.Exe = v
		case "cwd":
			e.Cwd = v
		case "pattern":
			e.CorePattern = v
		case "uses_pid":
			e.CoreUsesPid = v != "" && v != "0"
		case "orphans":
			e.OrphansKilled = v == "1"
		case "exec":
			e.ExecError = v
		}
	}
	return e
}
