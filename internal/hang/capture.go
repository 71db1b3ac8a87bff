package hang

import (
	"context"
	"debug/buildinfo"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/toolpath"
)

// Options tune Capture.
type Options struct {
	// Limit bounds the whole capture; 0 means DefaultLimit. The context
	// passed to Capture may bound it further.
	Limit time.Duration
	// Debugger is "gdb", "lldb", or "" for gdb falling back to lldb.
	Debugger string
}

// DefaultLimit bounds a capture. Attaching gdb to a program of 50 threads
// takes about 0.3 s on a quiet machine and a Go runtime's dump of 10,000
// goroutines 2-3 s (docs/PERFORMANCE.md), but a loaded machine or a large
// binary's symbols take several times that, and stacks lost to a tight
// limit are the evidence the timed-out call was for: the bound is for a
// debugger that never finishes, not for a slow one.
const DefaultLimit = 20 * time.Second

// Limits on what is kept.
const (
	maxProcesses   = 4       // leaves of the group captured
	maxKeptStacks  = 64      // stacks kept in a Report; the store has all
	maxDebuggerOut = 8 << 20 // a debugger's output kept
)

// Report is what a capture took.
type Report struct {
	Processes []Process `json:"processes"`
	// Stacks kept (bounded: the stuck ones first); TotalStacks counts all.
	Stacks      []Stack `json:"stacks,omitempty"`
	TotalStacks int     `json:"total_stacks"`
	// Stuck is set by Analyze.
	Stuck []Stuck `json:"stuck,omitempty"`
	// Building names the build's tools that were running ("go's
	// compiler", "rustc") when nothing else was: the run was still
	// building, no test or program of the project had started, and no
	// stacks were taken.
	Building []string `json:"building,omitempty"`
	// GoDumpCut: the goroutine dump was cut, so not every goroutine was
	// read.
	GoDumpCut bool `json:"go_dump_cut,omitempty"`
	// Notes say what could not be taken.
	Notes    []string      `json:"notes,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	// Text is the debuggers' output, for the output store (a Go dump is in
	// the program's own output already).
	Text string `json:"-"`
}

// Process is one process the capture looked at.
type Process struct {
	Pid    int    `json:"pid"`
	Comm   string `json:"comm"`
	Method string `json:"method"` // "SIGQUIT" (Go), "gdb" or "lldb"
	Err    string `json:"error,omitempty"`
}

// Capture takes the stacks of the process group pgid, which is about to be
// killed for hanging. It never kills anything itself except by SIGQUIT to
// a Go program (whose runtime then exits); it returns within opts.Limit.
// Goroutine dumps arrive in the program's output: pass it to AddGoDump.
func Capture(ctx context.Context, pgid int, opts Options) *Report {
	start := time.Now()
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	rep := &Report{}
	defer func() { rep.Duration = time.Since(start) }()

	leaves := rep.busyMembers(pgid)
	if len(leaves) == 0 {
		return rep
	}
	quitted := rep.takeStacks(ctx, leaves, opts.Debugger)
	rep.awaitGoDumps(ctx, pgid, quitted, limit)
	slices.SortStableFunc(rep.Processes, func(a, b Process) int { return a.Pid - b.Pid })
	rep.TotalStacks = len(rep.Stacks)
	return rep
}

// busyMembers are the members of process group pgid whose stacks are
// taken (at most maxProcesses); none, with a note saying why, when there
// are none.
func (rep *Report) busyMembers(pgid int) []spawn.Member {
	members, err := spawn.GroupMembers(pgid)
	if err != nil {
		rep.Notes = append(rep.Notes, "no stacks taken: "+err.Error())
		return nil
	}
	// And the descendants that left the group (setsid: Criterion's runner
	// and worker), whose stacks are the hang's as much.
	members = append(members, spawn.Escaped(pgid, pgid)...)
	leaves := leafMembers(members)
	if len(leaves) == 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("no stacks taken: process group %d has no live process left", pgid))
		return nil
	}
	// The program under test, not the build's tools (building.go).
	tools, toolPids, rest := splitBuilding(leaves)
	switch {
	case len(rest) > 0:
		leaves = rest
	case len(tools) > 0 && onlyBuilding(members, leaves):
		rep.Building = slices.Compact(slices.Sorted(slices.Values(tools)))
		rep.Notes = append(rep.Notes, fmt.Sprintf("still building: only the build's tools were running (%s), no program of the project", pidList(tools, toolPids)))
		return nil
	}
	if len(leaves) > maxProcesses {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d busy processes in the group: stacks of the first %d only", len(leaves), maxProcesses))
		leaves = leaves[:maxProcesses]
	}
	return leaves
}

// takeStacks attaches the debugger to each member, all at once, or sends a
// Go program SIGQUIT; it returns the pids sent SIGQUIT.
func (rep *Report) takeStacks(ctx context.Context, leaves []spawn.Member, debugger string) (quitted []int) {
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for _, m := range leaves {
		if isGoProgram(m.Pid) {
			p := Process{Pid: m.Pid, Comm: m.Comm, Method: "SIGQUIT"}
			// SIGQUIT rather than `go test -timeout` set inside triage's
			// limit: it works alike for test binaries, `go run` and any Go
			// program, needs no change to the user's command, and triage's
			// limit covers the whole run (build included), so the test
			// binary's own share of it is not known when it starts.
			if err := syscall.Kill(m.Pid, syscall.SIGQUIT); err != nil {
				p.Err = err.Error()
			} else {
				quitted = append(quitted, m.Pid)
			}
			rep.Processes = append(rep.Processes, p)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, stacks, text := attach(ctx, m, debugger)
			mu.Lock()
			defer mu.Unlock()
			rep.Processes = append(rep.Processes, p)
			if p.Err != "" {
				rep.Notes = append(rep.Notes, fmt.Sprintf("pid %d (%s): %s", p.Pid, p.Comm, p.Err))
			}
			rep.Stacks = append(rep.Stacks, stacks...)
			rep.Text += text
		}()
	}
	wg.Wait()
	return quitted
}

// awaitGoDumps waits for the Go programs sent SIGQUIT to dump their
// goroutines and exit.
func (rep *Report) awaitGoDumps(ctx context.Context, pgid int, quitted []int, limit time.Duration) {
	for _, pid := range quitted {
		if !spawn.WaitExited(ctx, pid) {
			rep.Notes = append(rep.Notes, fmt.Sprintf("Go program %d did not dump its goroutines on SIGQUIT within %s (it may catch SIGQUIT, or run with GOTRACEBACK=none)", pid, limit))
		}
	}
	if len(quitted) > 0 {
		// The dump reaches our pipe through its parent (go test copies the
		// test binary's output): give the leader, now without its child,
		// a moment to pass it on and exit.
		settle, cancel := context.WithTimeout(ctx, time.Second)
		spawn.WaitExited(settle, pgid)
		cancel()
	}
}

// leafMembers are the members with no child in the group: the processes
// doing the work (a test binary rather than `go test`, a program rather
// than the shell that started it).
func leafMembers(ms []spawn.Member) []spawn.Member {
	parents := make(map[int]bool, len(ms))
	for _, m := range ms {
		parents[m.PPid] = true
	}
	var out []spawn.Member
	for _, m := range ms {
		if !parents[m.Pid] {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b spawn.Member) int { return a.Pid - b.Pid })
	return out
}

// isGoProgram reports whether pid runs a Go binary (it carries Go's build
// information).
func isGoProgram(pid int) bool {
	_, err := buildinfo.ReadFile(exePath(pid))
	return err == nil
}

// attach takes every thread's backtrace of a native process with a
// debugger in batch mode, which detaches when done.
func attach(ctx context.Context, m spawn.Member, debugger string) (Process, []Stack, string) {
	p := Process{Pid: m.Pid, Comm: m.Comm}
	states := spawn.ThreadStates(m.Pid) // before the debugger stops them
	futexes := futexWaits(m.Pid, states)
	argv, parse, err := debuggerArgv(debugger, m.Pid)
	if err != nil {
		p.Err = err.Error()
		return p, nil, ""
	}
	p.Method = debuggerName(argv[0])
	res, printed, err := runDebugger(ctx, argv)
	switch {
	case err != nil:
		p.Err = err.Error()
		return p, nil, ""
	case res.TimedOut || res.Cancelled:
		p.Err = p.Method + " did not finish within the capture's time limit"
	}
	threads := parse(printed)
	if len(threads) == 0 && p.Err == "" {
		p.Err = p.Method + " printed no thread: " + lastLine(printed)
	}
	stacks := make([]Stack, 0, len(threads))
	for _, t := range threads {
		st := Stack{Pid: m.Pid, Kind: KindThread, ID: t.ID, LWP: t.LWP, Name: t.Name, Frames: t.Frames}
		if states[t.LWP] == 'R' {
			st.State = "running"
		}
		stacks = append(stacks, st)
	}
	setMutexOwners(m.Pid, stacks, states, futexes)
	text := fmt.Sprintf("\n--- stacks of pid %d (%s) taken by %s before the kill ---\n%s\n", m.Pid, m.Comm, p.Method, strings.TrimSpace(printed))
	return p, stacks, text
}

// setMutexOwners names, for each thread waiting in glibc's
// pthread_mutex_lock, the thread holding the mutex, and for each in
// pthread_rwlock_rdlock or _wrlock, the writer holding the rwlock, read
// from the lock (the futex the thread sleeps on is in it): an owner that
// is not another live thread of the process is not named.
func setMutexOwners(pid int, stacks []Stack, states map[int]byte, futexes map[int]uint64) {
	for i := range stacks {
		st := &stacks[i]
		addr, ok := futexes[st.LWP]
		if !ok {
			continue
		}
		live := func(tid int) bool { return tid != st.LWP && states[tid] != 0 }
		owner := 0
		switch rw := rwlockCall(st.Frames); {
		case slices.ContainsFunc(st.Frames, isMutexLockFrame):
			owner = mutexOwner(pid, addr)
		case rw != "":
			owner = rwlockWriter(pid, addr, rw == rwWrite, live)
		}
		if live(owner) {
			st.MutexOwner = owner
		}
	}
}

// runDebugger runs a batch debugger and returns what it printed, its
// first maxDebuggerOut bytes. Its stdout and stderr are one pipe, so its
// messages ("warning: …", "[New LWP …]") keep their place among the
// stacks and a line is never cut by a line of the other stream: the text
// written into the run's output, and its line count, are the same from
// one capture to the next.
func runDebugger(ctx context.Context, argv []string) (*spawn.Result, string, error) {
	out := &capped{max: maxDebuggerOut}
	res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, MergeStderr: true, Stdout: out, Grace: 200 * time.Millisecond})
	return res, out.String(), err
}

func debuggerArgv(name string, pid int) ([]string, func(string) []coredump.ThreadTrace, error) {
	gdb := func() ([]string, bool) {
		path, err := toolpath.GDB.Find()
		if err != nil {
			return nil, false
		}
		// -nx: no ~/.gdbinit; no debuginfod, which could stall on the
		// network; no auto-loaded scripts (Rust's pretty printers) and no
		// argument values, which only cost time here.
		return []string{path, "-nx", "-batch", "-iex", "set debuginfod enabled off", "-iex", "set auto-load off",
			"-ex", "set pagination off", "-ex", "set width 0", "-ex", "set print frame-arguments none",
			"-ex", "thread apply all bt", "-p", strconv.Itoa(pid)}, true
	}
	lldb := func() ([]string, bool) {
		path, err := toolpath.LLDB.Find()
		if err != nil {
			return nil, false
		}
		return []string{path, "--batch", "--no-lldbinit", "-p", strconv.Itoa(pid),
			"-o", "bt all", "-o", "process detach"}, true
	}
	if name != "lldb" {
		if argv, ok := gdb(); ok {
			return argv, coredump.ParseGDBThreads, nil
		}
	}
	if name != "gdb" {
		if argv, ok := lldb(); ok {
			return argv, coredump.ParseLLDBThreads, nil
		}
	}
	return nil, nil, fmt.Errorf("no debugger to take the stacks with: install gdb or lldb")
}

func debuggerName(path string) string {
	if strings.Contains(path[strings.LastIndexByte(path, '/')+1:], "lldb") {
		return "lldb"
	}
	return "gdb"
}

// AddGoDump reads the goroutine dumps a capture's SIGQUIT made the program
// print, from the output kept since the capture began.
func (r *Report) AddGoDump(out []byte, cut bool) {
	var goPid int
	for _, p := range r.Processes {
		if p.Method == "SIGQUIT" && p.Err == "" {
			if goPid != 0 {
				goPid = -1 // several: their dumps cannot be told apart
				continue
			}
			goPid = p.Pid
		}
	}
	if goPid == 0 {
		return
	}
	stacks := ParseGoroutines(out)
	if len(stacks) == 0 {
		r.Notes = append(r.Notes, "no goroutine dump found in the output after SIGQUIT")
		return
	}
	if cut {
		r.GoDumpCut = true
		r.Notes = append(r.Notes, fmt.Sprintf("the goroutine dump was cut at %d MiB: %d goroutines read", MaxTap>>20, len(stacks)))
	}
	for i := range stacks {
		stacks[i].Pid = max(goPid, 0)
	}
	r.Stacks = append(r.Stacks, stacks...)
	r.TotalStacks = len(r.Stacks)
}

// Trimmed returns a copy of the report keeping the stuck stacks and the
// first others up to a bound, so that a report of 10,000 goroutines stays
// small (the output store has them all); Stuck indexes follow. Call it
// after Analyze, for rendering.
func (r *Report) Trimmed() *Report {
	c := *r
	if len(r.Stacks) <= maxKeptStacks {
		return &c
	}
	c.Stuck = slices.Clone(r.Stuck)
	keep := make([]Stack, 0, maxKeptStacks)
	from := make(map[int]bool, len(r.Stuck))
	for i, s := range r.Stuck {
		from[s.Stack] = true
		keep = append(keep, r.Stacks[s.Stack])
		c.Stuck[i].Stack = len(keep) - 1
	}
	for i := 0; i < len(r.Stacks) && len(keep) < maxKeptStacks; i++ {
		if !from[i] {
			keep = append(keep, r.Stacks[i])
		}
	}
	c.Stacks = keep
	return &c
}

// capped keeps the first max bytes written.
type capped struct {
	mu  sync.Mutex
	b   strings.Builder
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.b.Len(); room < len(p) {
		c.b.Write(p[:max(room, 0)])
		return len(p), nil
	}
	c.b.Write(p)
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
