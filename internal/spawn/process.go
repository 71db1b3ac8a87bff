package spawn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// Process is a running child and its process group.
//
// Ownership: Start launches one supervisor goroutine per Process, plus one
// reader goroutine per output stream and, when Spec.Stdin is not an
// *os.File, one goroutine copying Stdin into the child. The supervisor alone
// reaps the leader, signals the group and closes the pipes; other methods
// talk to it through channels, so all methods are safe for concurrent use.
// Done is closed once the leader is reaped, what was left of its group is
// killed, and both output streams are fully delivered to the sinks.
type Process struct {
	pid     int
	escaped []escapee // descendants that left the group: escaped.go
	os      *os.Process
	argv    []string
	path    string
	dir     string
	started time.Time

	stdinW      *os.File // write side of the child's stdin pipe, nil if none
	stdinCopied bool     // a goroutine copies Spec.Stdin into stdinW
	stdinOnce   sync.Once

	stdout, stderr *stream

	stopc chan stopRequest // Stop requests, received by the supervisor
	done  chan struct{}

	result *Result // set before done is closed
	err    error   // sink or read failure, set before done is closed
}

// Run starts the process described by s and waits for it. The error is
// non-nil only when the process could not be started (a *StartError, or the
// context's error if ctx was already done) or a sink failed; in the latter
// case the Result is still valid.
func Run(ctx context.Context, s Spec) (*Result, error) {
	p, err := Start(ctx, s)
	if err != nil {
		return nil, err
	}
	return p.Wait()
}

// Start launches the process in its own process group and returns at once.
//
// The process lives until it exits, Spec.Timeout elapses, ctx is done or
// Stop is called; in the last three cases the whole group gets SIGTERM,
// then SIGKILL after the grace period. A caller that wants a process to
// outlive the request that started it passes context.WithoutCancel(ctx).
//
// For an interactive child (a debugger REPL), pass the read side of an
// io.Pipe as Spec.Stdin and write commands to the other side; sinks receive
// the replies as they arrive. Closing the pipe writer sends EOF.
func Start(ctx context.Context, s Spec) (*Process, error) {
	return start(ctx, s, nil)
}

// StartInteractive starts s with a pipe on its stdin and returns the write
// end, for driving a REPL (gdb, lldb, crash) command by command. s.Stdin must
// be nil. The returned file is a real pipe, so SetWriteDeadline bounds a
// write to a child that stopped reading; writes after the child exited fail
// (the Process closes the pipe then). Closing it sends EOF.
func StartInteractive(ctx context.Context, s Spec) (*Process, *os.File, error) {
	if s.Stdin != nil {
		return nil, nil, &StartError{Kind: KindOther, Program: firstArg(s.Argv), Detail: "StartInteractive makes its own stdin: leave Spec.Stdin nil"}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, &StartError{Kind: KindOther, Program: firstArg(s.Argv), Detail: "creating stdin pipe", Err: err}
	}
	defer r.Close() // the child has its own copy
	s.Stdin = r
	p, err := start(ctx, s, w)
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	return p, w, nil
}

// start launches s; stdinW, when set, is the parent's end of the child's
// stdin pipe, closed when the child exits.
// spawn starts the child with files as its descriptors, then closes them
// (ours must go so EOF can happen); when it could not start, it closes the
// parent's ends too.
func (p *Process) spawn(s Spec, path string, attr *os.ProcAttr, files, parentEnds []*os.File) error {
	var err error
	forkMu.Lock()
	onSpawnThread(func() {
		err = withCoreLimit(s.CoreDumps, func() error {
			var err error
			p.os, err = os.StartProcess(path, s.Argv, attr)
			return err
		})
	})
	forkMu.Unlock()
	p.started = time.Now()
	for _, f := range files {
		f.Close() // the child's ends
	}
	if err != nil {
		for _, f := range parentEnds {
			f.Close()
		}
		if p.stdinCopied {
			p.stdinW.Close()
		}
		return startErrorFrom(s.Argv[0], path, err)
	}
	return nil
}

func start(ctx context.Context, s Spec, stdinW *os.File) (*Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("starting %q: %w", firstArg(s.Argv), err)
	}
	r, err := s.validate()
	if err != nil {
		return nil, err
	}
	p := &Process{
		argv:  append([]string(nil), s.Argv...),
		path:  r.path,
		dir:   s.Dir,
		stopc: make(chan stopRequest),
		done:  make(chan struct{}),
	}
	files, parentEnds, err := p.openPipes(s)
	if err == nil && stdinW != nil {
		p.stdinW = stdinW // Spec.Stdin is its read end, passed as a file
	}
	if err != nil {
		return nil, &StartError{Kind: KindOther, Program: s.Argv[0], Detail: "creating pipes", Err: err}
	}
	attr := &os.ProcAttr{
		Dir:   s.Dir,
		Env:   r.env,
		Files: files,
		Sys:   sysProcAttr(),
	}
	oomBefore := oomKills()

	if err := p.spawn(s, r.path, attr, files, parentEnds); err != nil {
		return nil, err
	}
	p.pid = p.os.Pid

	var comb *combiner
	if s.Combined != nil {
		comb = &combiner{w: s.Combined}
	}
	p.stdout = newStream(parentEnds[0], s.Stdout, comb)
	p.stderr = newStream(parentEnds[1], s.Stderr, comb)
	go p.stdout.run()
	go p.stderr.run()
	if p.stdinCopied {
		go p.copyStdin(s.Stdin)
	}
	go p.supervise(ctx, supervision{
		timeout:   s.Timeout,
		grace:     orDefault(s.Grace, DefaultGrace),
		waitDelay: orDefault(s.WaitDelay, DefaultWaitDelay),
		oomBefore: oomBefore,
		comb:      comb,
		hang:      hangHook{fn: s.OnHang, limit: orDefault(s.HangLimit, DefaultHangLimit)},
		onExit:    s.OnExit,
		stall:     s.Stall,
	})
	return p, nil
}

// openPipes returns the child's stdin, stdout, stderr and our read ends of
// stdout and stderr. Every pipe is an *os.File so the runtime poller can
// interrupt a blocked read with a deadline.
func (p *Process) openPipes(s Spec) (child []*os.File, parent []*os.File, err error) {
	var closers []*os.File
	defer func() {
		if err != nil {
			for _, f := range closers {
				f.Close()
			}
		}
	}()
	var stdin *os.File
	switch in := s.Stdin.(type) {
	case nil:
		if stdin, err = os.Open(os.DevNull); err != nil {
			return nil, nil, err
		}
	case *os.File:
		// Dup so that closing the child's copy never closes the caller's
		// file. ForkLock keeps a concurrent fork from inheriting the dup
		// before it is marked close-on-exec.
		// Fd also puts the file in blocking mode, as os/exec does: the
		// child must not inherit O_NONBLOCK (a pipe from os.Pipe has it),
		// or its first read of an empty pipe fails with EAGAIN.
		syscall.ForkLock.RLock()
		fd, derr := syscall.Dup(int(in.Fd()))
		if derr == nil {
			syscall.CloseOnExec(fd)
		}
		syscall.ForkLock.RUnlock()
		if derr != nil {
			return nil, nil, derr
		}
		stdin = os.NewFile(uintptr(fd), in.Name())
	default:
		if stdin, p.stdinW, err = os.Pipe(); err != nil {
			return nil, nil, err
		}
		p.stdinCopied = true
		closers = append(closers, p.stdinW)
	}
	closers = append(closers, stdin)
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, outR, outW)
	errR, errW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	if s.MergeStderr {
		// The child's fd 2 is its stdout pipe, so both streams keep the
		// child's own order; our stderr stream reads EOF at once.
		errW.Close()
		return []*os.File{stdin, outW, outW}, []*os.File{outR, errR}, nil
	}
	return []*os.File{stdin, outW, errW}, []*os.File{outR, errR}, nil
}

// copyStdin feeds the child. It ends when the caller's reader does, or at
// its next write after the child is gone (closeStdin closed the pipe). A
// reader that blocks forever keeps this goroutine parked but never delays
// Wait.
func (p *Process) copyStdin(r io.Reader) {
	io.Copy(p.stdinW, r) // an error means the child is gone: nothing to report
	p.closeStdin()
}

func (p *Process) closeStdin() {
	if p.stdinW != nil {
		p.stdinOnce.Do(func() { p.stdinW.Close() })
	}
}

// Pid returns the leader's process id, which is also the process group id.
func (p *Process) Pid() int { return p.pid }

// Done is closed when the process has finished and Wait will not block.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait blocks until the process has finished and returns its Result. The
// error, if any, reports a sink that failed or a pipe that could not be
// read; the Result is valid regardless.
func (p *Process) Wait() (*Result, error) {
	<-p.done
	return p.result, p.err
}

// Stop sends SIGTERM to the process group, SIGKILL after grace (<= 0 means
// the Spec's Grace), and waits for the end. If a timeout or cancellation is
// already terminating the group, Stop just waits for it. The Result has Cancelled set unless
// the process had already finished.
func (p *Process) Stop(grace time.Duration) (*Result, error) {
	return p.stop(stopRequest{grace: grace})
}

// StopWithStacks is Stop for a group the caller found stuck: Spec.OnHang
// (HangStopped) takes its stacks first, then the group is ended as by
// Stop. Only while nothing else is ending it.
func (p *Process) StopWithStacks(grace time.Duration) (*Result, error) {
	return p.stop(stopRequest{grace: grace, stacks: true})
}

// stopRequest is a Stop: its grace, and whether stacks come first.
type stopRequest struct {
	grace  time.Duration
	stacks bool
}

func (p *Process) stop(r stopRequest) (*Result, error) {
	select {
	case p.stopc <- r:
	case <-p.done:
	}
	return p.Wait()
}

// Signal sends sig to the leader only, for example SIGINT to interrupt a
// debugger's inferior without ending the debugger's own children.
func (p *Process) Signal(sig syscall.Signal) error {
	err := p.os.Signal(sig)
	if errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signalling pid %d: %w", p.pid, err)
	}
	if err != nil {
		return fmt.Errorf("signalling pid %d with %s: %w", p.pid, SignalName(sig), err)
	}
	return nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

func firstArg(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	return argv[0]
}

// startErrorFrom classifies a failed fork/exec.
func startErrorFrom(prog, path string, err error) error {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return &StartError{Kind: KindOther, Program: prog, Detail: "fork/exec " + path, Err: err}
	}
	switch errno {
	case syscall.ENOENT:
		return &StartError{Kind: KindNotFound, Program: prog, Err: err,
			Detail: fmt.Sprintf("exec %s failed: the file or its #! interpreter / dynamic loader is missing", path)}
	case syscall.EACCES, syscall.EPERM:
		return &StartError{Kind: KindNotExecutable, Program: prog, Err: err,
			Detail: fmt.Sprintf("exec %s was refused: check permissions and that its filesystem is not mounted noexec", path)}
	case syscall.ENOEXEC:
		return &StartError{Kind: KindNotExecutable, Program: prog, Err: err,
			Detail: fmt.Sprintf("%s is not an executable for this machine: rebuild it for this OS/architecture or add a #! line", path)}
	case syscall.EISDIR:
		return &StartError{Kind: KindIsDirectory, Program: prog, Err: err, Detail: path + " is a directory"}
	case syscall.ENOTDIR:
		return &StartError{Kind: KindBadDir, Program: prog, Err: err, Detail: "a path component is not a directory"}
	}
	return &StartError{Kind: KindOther, Program: prog, Detail: "fork/exec " + path, Err: err}
}
