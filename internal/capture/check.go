package capture

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/memcheck"
	"github.com/triage-dev/triage/internal/scratch"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/toolpath"
	"github.com/triage-dev/triage/internal/verdict"
)

// Check is a checker a program runs under from its start (the check
// argument of run and process_start), as opposed to the rerun of a crash
// (memrerun.go).
type Check string

// The checkers a run can ask for. A program already built can be run only
// under valgrind (memcheck, helgrind), so undefined needs a build (the
// test tool's sanitizer builds).
const (
	CheckNone      Check = ""
	CheckMemory    Check = "memory"    // valgrind memcheck
	CheckLeaks     Check = "leaks"     // memcheck with --leak-check=full, definite leaks as errors
	CheckUndefined Check = "undefined" // UBSan: needs a build
	CheckThread    Check = "thread"    // valgrind helgrind (a test's: TSan or Go's -race)
)

// ParseCheck reads a check argument; "" is none.
func ParseCheck(s string) (Check, error) {
	switch c := Check(strings.ToLower(strings.TrimSpace(s))); c {
	case CheckNone, CheckMemory, CheckLeaks, CheckUndefined, CheckThread:
		return c, nil
	}
	return "", fault.Usagef("check %q: want memory, leaks, undefined or thread", s)
}

// checked is a run under valgrind from its start: where its XML goes.
type checked struct {
	check Check
	opts  memcheck.Options // the program's, as memcheck.Command reads them
	xml   string
	dir   *scratch.Owned
}

// underChecker turns req into a run of its program under the checker:
// valgrind memcheck for memory and leaks, helgrind for thread, writing
// its XML apart, with the program's own exit status, and no core
// (valgrind writes its own).
// A checker that needs a build, a host, a script or a missing valgrind is
// an error that says so.
func underChecker(req *Request, c Check) (*checked, error) {
	switch {
	case c == CheckUndefined:
		return nil, fault.Usagef("check: %s needs the program built with -fsanitize=undefined; run cannot add it to a program already built: use test with check: %s, or build the program with the flag", c, c)
	case req.Remote != nil:
		return nil, fault.Usagef("check: %s runs valgrind here; it is not available with ssh_host", c)
	case len(req.Spec.Argv) == 0 || req.Spec.Argv[0] == "":
		return nil, fault.Usagef("check: no program given")
	}
	prog, err := executable(req.Spec.Argv[0], req.Spec.Dir)
	if err != nil {
		return nil, err
	}
	vg, err := toolpath.Valgrind.Find()
	if err != nil {
		return nil, fault.Unavailablef("check: %s needs valgrind (%s): %v", c, toolpath.Valgrind.Install, err)
	}
	dir, err := scratch.Dir("", "check")
	if err != nil {
		return nil, fmt.Errorf("check: a directory for valgrind's XML: %w", err)
	}
	k := &checked{check: c, xml: filepath.Join(dir.Path, "memcheck.xml"), dir: dir,
		opts: memcheck.Options{Argv: append([]string{prog}, req.Spec.Argv[1:]...), Leaks: c == CheckLeaks, KeepExit: true, ProjectDir: req.ProjectDir,
			TrackOrigins: c == CheckMemory}}
	if c == CheckThread {
		k.opts.Tool = memcheck.ToolHelgrind
	}
	req.programArgv = k.opts.Argv
	req.Spec.Argv = memcheck.Command(vg, k.xml, k.opts)
	req.Spec.CoreDumps = false // a core of valgrind itself says nothing of the program
	return k, nil
}

// executable is the program valgrind is to run, absolute: a path is taken
// in dir, a bare name in PATH. One that cannot run is a usage error here,
// as a run's start failure is, rather than valgrind's exit status 1; a
// script is one too, since valgrind would check its interpreter.
func executable(program, dir string) (string, error) {
	path := program
	if strings.Contains(program, "/") {
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
	} else if p, err := exec.LookPath(program); err == nil {
		path = p
	} else {
		return "", fault.Usagef("check: program %q not found in PATH", program)
	}
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return "", fault.Usagef("check: program %s: %v", program, err)
	case st.IsDir() || st.Mode()&0o111 == 0:
		return "", fault.Usagef("check: program %s is not an executable file", program)
	case script(path, dir):
		return "", fault.Usagef("check: %s is a script: valgrind would check its interpreter, not the program", program)
	}
	return filepath.Abs(path)
}

// remove removes the XML's directory of a run that did not happen.
func (k *checked) remove() {
	if k != nil {
		k.dir.Remove()
	}
}

// conclude reads valgrind's XML once the run has ended, keeps it in the
// store, and makes a reported error the verdict: a run valgrind reported
// on is a failure even when the program exited 0.
func (k *checked) conclude(ctx context.Context, st *store.Store, o *Outcome) *MemcheckRun {
	defer k.dir.Remove()
	res := memcheck.Conclude(o.Result.Argv, k.xml, o.Result, k.opts, "")
	removeVgcore(o.Result.Dir, o.Result)
	mr := &MemcheckRun{Why: "check: " + string(k.check), OnDemand: true, Result: res,
		Limit: o.Result.Timeout, Took: o.Result.Duration}
	mr.OutputID, mr.StoreErr = keepXML(ctx, st, res, o.Result.Dir)
	if res.Outcome == memcheck.Found {
		reportedVerdict(&o.Verdict, res)
	}
	return mr
}

// reportedVerdict makes a run memcheck reported on a failure named by its
// first report (a crash, a timeout or a hang stays what it is: the report
// is the answer's first line under it).
func reportedVerdict(v *verdict.Verdict, res *memcheck.Result) {
	switch v.Status {
	case verdict.StatusSuccess, verdict.StatusFailure, verdict.StatusSilentFailure:
	default:
		return
	}
	v.Status = verdict.StatusFailure
	v.Line = fmt.Sprintf("FAILED: %s — the program exited %d", res.Summary(), v.ExitCode)
}

// checkedCore is a checked run's core evidence: valgrind keeps the kernel
// from dumping one, and its own report says where the program died.
func checkedCore() []verdict.Evidence {
	return []verdict.Evidence{{Kind: "core_dump", Summary: "no core dump: the program ran under valgrind, whose report says where it died"}}
}

// asRan is the result the verdict reads: under a checker, the program's
// own argv and path, which the hints rerun.
func (req Request) asRan(res *spawn.Result) *spawn.Result {
	if req.programArgv == nil || res == nil {
		return res
	}
	c := *res
	c.Argv, c.Path = req.programArgv, req.programArgv[0]
	return &c
}

// Checker is a run under a checker from its start for a caller that
// starts the run and waits for it itself (a background job): PrepareCheck
// turns the request into the checker's run before it starts, Conclude
// reads the checker's report once it has ended.
type Checker struct{ k *checked }

// PrepareCheck turns req into a run of its program under c (as run's
// check does); nil, and req unchanged, for CheckNone.
func PrepareCheck(req *Request, c Check) (*Checker, error) {
	if c == CheckNone {
		return nil, nil
	}
	k, err := underChecker(req, c)
	if err != nil {
		return nil, err
	}
	return &Checker{k: k}, nil
}

// Conclude reads the checker's report of the run that ended with o, keeps
// it in st, and makes a report the verdict (o.Memcheck is set); a nil
// Checker does nothing.
func (c *Checker) Conclude(ctx context.Context, st *store.Store, o *Outcome) {
	if c != nil {
		o.Memcheck = c.k.conclude(ctx, st, o)
	}
}

// Discard removes what a run that never started would have written.
func (c *Checker) Discard() {
	if c != nil {
		c.k.remove()
	}
}
