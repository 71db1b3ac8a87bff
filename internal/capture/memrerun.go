package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/memcheck"
	"github.com/triage-dev/triage/internal/scratch"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/toolpath"
	"github.com/triage-dev/triage/internal/verdict"
)

// The rerun's time limit: the answer waits for it, so it is bounded, and
// it says when the rerun ran out.
const (
	// memcheckSlowdown: memcheck runs a program 10 to 50 times slower than
	// it runs alone (20 to 30 is usual): the rerun gets this many times the
	// crashed run's own time...
	memcheckSlowdown = 20
	// memcheckFloor: ...but no less: valgrind's own start (reading the
	// program's and libc's debug info) takes a second or two whatever the
	// program does.
	memcheckFloor = 10 * time.Second
	// memcheckCeiling: ...and no more than a minute, the most an answer
	// waits for a cause on top of the crash it already has.
	memcheckCeiling = 60 * time.Second
	// memcheckDetailLines bounds the report's lines under its summary.
	memcheckDetailLines = 16
)

// Memcheck says whether a run whose crash looks like memory corruption is
// rerun under valgrind memcheck (StoredRun).
type Memcheck struct {
	Off bool // never rerun (the run tool's memcheck: false)
	// Notify, when set, is told in words that the rerun starts: the call's
	// progress while the answer waits for it.
	Notify func(msg string)
}

// MemcheckRun is the rerun under valgrind memcheck of a crash that looked
// like memory corruption: the first memory error where it happens, or
// that none was seen, or why there is no verdict.
type MemcheckRun struct {
	Why string // why the crash looked like memory corruption
	// OnDemand: the program ran under memcheck from its start (the run
	// tool's check; Why names it), not rerun after a crash.
	OnDemand bool
	// Result is what memcheck found; nil when valgrind did not run, and
	// NotRun says why (Missing: valgrind is not installed).
	Result  *memcheck.Result
	NotRun  string
	Missing bool
	Limit   time.Duration
	Took    time.Duration
	// OutputID names valgrind's whole XML in the store, "" when none was
	// kept; StoreErr is why the store could not keep it.
	OutputID string
	StoreErr error
}

// memcheckLimit is the rerun's time limit for a run that took ran.
func memcheckLimit(ran time.Duration) time.Duration {
	return min(memcheckCeiling, max(memcheckFloor, memcheckSlowdown*ran))
}

// rerun reruns a local run's program under memcheck when its crash looks
// like memory corruption (nil otherwise), keeps valgrind's XML in st, and
// adds the hint to install valgrind when it is missing.
func (m Memcheck) rerun(ctx context.Context, st *store.Store, req Request, o *Outcome) *MemcheckRun {
	if m.Off || req.Remote != nil || o.Result == nil {
		return nil
	}
	ok, why := looksLikeCorruption(factsOf(o, req.ProjectDir))
	if !ok {
		return nil
	}
	opts, err := rerunOptions(req, o.Result)
	mr := m.start(ctx, st, why, o.Result.Duration, opts, err)
	if mr.Missing {
		o.Verdict.Hints = append([]verdict.Hint{{Text: "install valgrind (" + toolpath.Valgrind.Install +
			"): a crash that looks like memory corruption is then rerun under memcheck, which names the bad access and its heap block"}}, o.Verdict.Hints...)
	}
	return mr
}

// start reruns opts's program under memcheck, limited by the time the
// crashed run took (ran); err, when set, is why it cannot be rerun.
func (m Memcheck) start(ctx context.Context, st *store.Store, why string, ran time.Duration, opts memcheck.Options, err error) *MemcheckRun {
	mr := &MemcheckRun{Why: why, Limit: memcheckLimit(ran)}
	if err == nil && script(opts.Argv[0], opts.Dir) {
		err = fmt.Errorf("%s is a script: valgrind would check its interpreter, not the program that crashed", opts.Argv[0])
	}
	if err == nil {
		_, err = toolpath.Valgrind.Find() // before the progress says a rerun starts
		err = fault.Unavailable(err)
	}
	if err == nil {
		opts.Timeout = mr.Limit
		if m.Notify != nil {
			m.Notify(fmt.Sprintf("rerunning %s under valgrind memcheck (limit %s): %s", filepath.Base(opts.Argv[0]), mr.Limit, why))
		}
		err = mr.run(ctx, st, opts)
	}
	if err != nil {
		mr.NotRun, mr.Missing = err.Error(), fault.Is(err, fault.KindUnavailable)
	}
	return mr
}

// run runs valgrind with its XML in a directory of its own, then keeps
// the XML in the store.
func (mr *MemcheckRun) run(ctx context.Context, st *store.Store, opts memcheck.Options) error {
	dir, err := scratch.Dir("", "memcheck-rerun")
	if err != nil {
		return fmt.Errorf("a directory for valgrind's XML: %w", err)
	}
	defer dir.Remove()
	opts.XMLPath = filepath.Join(dir.Path, "memcheck.xml")
	// where an uninitialised value that decided a branch was created:
	// the report names its allocation, not only the branch
	opts.TrackOrigins = true
	start := time.Now()
	res, err := memcheck.Run(ctx, opts)
	mr.Took = time.Since(start)
	if err != nil {
		return err
	}
	removeVgcore(opts.Dir, res.Process)
	mr.Result = res
	mr.OutputID, mr.StoreErr = keepXML(ctx, st, res, opts.Dir)
	return nil
}

// rerunOptions is the run's program as memcheck reruns it: the executable
// it ran, its arguments, directory, environment and input.
func rerunOptions(req Request, res *spawn.Result) (memcheck.Options, error) {
	spec := req.Spec
	argv := append([]string(nil), spec.Argv...)
	if len(argv) == 0 {
		return memcheck.Options{}, errors.New("no program to rerun")
	}
	if res.Path != "" {
		argv[0] = res.Path
	}
	dir := res.Dir
	if dir == "" {
		dir = spec.Dir
	}
	stdin, err := replay(spec.Stdin)
	if err != nil {
		return memcheck.Options{}, err
	}
	return memcheck.Options{Argv: argv, Dir: dir, Env: spec.Env, Unset: spec.Unset, Stdin: stdin, ProjectDir: req.ProjectDir}, nil
}

// script reports a program that starts with "#!".
func script(program, dir string) bool {
	if !filepath.IsAbs(program) && strings.Contains(program, "/") {
		program = filepath.Join(dir, program)
	}
	f, err := os.Open(program)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := io.ReadFull(f, head)
	return n == 2 && string(head) == "#!"
}

// replay is the run's input again: a reader that can seek back to its
// start (the run tool's stdin text).
func replay(r io.Reader) (io.Reader, error) {
	if r == nil {
		return nil, nil
	}
	if s, ok := r.(io.Seeker); ok {
		if _, err := s.Seek(0, io.SeekStart); err == nil {
			return r, nil
		}
	}
	return nil, errors.New("its standard input cannot be given again")
}

// removeVgcore removes the vgcore.PID valgrind writes in the program's
// directory when the program dies of a signal and the core size limit
// allows it: the rerun's, not the user's, and the run's own core is kept.
func removeVgcore(dir string, p *spawn.Result) {
	if p == nil || p.Pid <= 0 {
		return
	}
	os.Remove(filepath.Join(dir, fmt.Sprintf("vgcore.%d", p.Pid)))
}

// keepXML keeps valgrind's XML, whole, as an output of its own.
func keepXML(ctx context.Context, st *store.Store, res *memcheck.Result, dir string) (string, error) {
	if st == nil || res.XMLPath == "" {
		return "", nil
	}
	f, err := os.Open(res.XMLPath)
	if err != nil {
		return "", err
	}
	defer f.Close()
	w, err := st.Create(ctx, store.Meta{Tool: "memcheck", Argv: res.Argv, Cwd: dir})
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(w, f); err != nil {
		w.Abort()
		return "", err
	}
	final := store.Final{Status: xmlStatus(res), VerdictLine: res.Summary()}
	if res.Process != nil {
		final.ExitCode = res.Process.ExitCode
	}
	return w.ID(), w.Finish(context.WithoutCancel(ctx), final)
}

// xmlStatus is the stored XML's status: a memory error is a failure.
func xmlStatus(res *memcheck.Result) string {
	switch {
	case res.Outcome == memcheck.Found:
		return string(verdict.StatusFailure)
	case res.Outcome == memcheck.Clean:
		return string(verdict.StatusSuccess)
	case res.Process != nil && res.Process.TimedOut:
		return string(verdict.StatusTimeout)
	case res.Process != nil && res.Process.Cancelled:
		return string(verdict.StatusInterrupted)
	}
	return string(verdict.StatusFailure)
}
