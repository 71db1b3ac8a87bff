package capture

import (
	"context"
	"errors"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/store"
)

// StoredRun is one foreground run as the run tool makes it: its output
// captured into the store, its cores kept with the output, and the
// caller's answer stored with the verdict.
type StoredRun struct {
	Tool  string // the store entry's tool
	Store *store.Store
	// Budget bounds the excerpt, in bytes.
	Budget int
	// Request is the run; Output, OutputID and KeepCores are set here.
	Request Request
	// Progress is Options.Progress of the capture.
	Progress func(Progress) string
	// Answer renders the finished run from its outcome and what the
	// capture kept; what it returns is stored with the output.
	Answer func(*Outcome, Result) any
	// Memcheck: a crash that looks like memory corruption is rerun under
	// valgrind memcheck before the answer (Outcome.Memcheck), unless Off.
	Memcheck Memcheck
	// Check runs the program under a checker from its start (check.go);
	// the crash rerun is then not made: the run already was under it.
	Check Check
}

// RunStored runs r. The error is a usage error when the program cannot
// start, else the store's; the result is what the store kept (its Err: a
// store write that failed).
func RunStored(ctx context.Context, r StoredRun) (Result, error) {
	var err error
	req := r.Request
	var k *checked
	if r.Check != CheckNone {
		if k, err = underChecker(&req, r.Check); err != nil {
			return Result{}, err
		}
	}
	cp, err := Open(ctx, r.Store, store.Meta{Tool: r.Tool, Argv: req.Spec.Argv, Cwd: req.Spec.Dir},
		Options{Budget: r.Budget, Progress: r.Progress})
	if err != nil {
		k.remove()
		return Result{}, err
	}
	req.Output, req.OutputID, req.KeepCores = cp, cp.ID(), r.Store.CoreDir(cp.ID())
	o, err := Run(ctx, req)
	if err != nil {
		err = StartFailure(err)
		cp.AbortWith(err.Error())
		k.remove()
		return Result{}, err
	}
	kept := cp.Close() // its progress stops: the rerun reports its own
	if k != nil {
		o.Memcheck = k.conclude(ctx, r.Store, o)
	} else {
		o.Memcheck = r.Memcheck.rerun(ctx, r.Store, req, o)
	}
	answer := r.Answer(o, kept)
	return cp.FinishWith(ctx, store.Final{Status: string(o.Verdict.Status), VerdictLine: o.Verdict.Line, ExitCode: o.Result.ExitCode}, answer), nil
}

// StartFailure turns a spawn start failure into a usage error (the
// arguments name something that cannot run), keeping its specific
// message; other errors are returned as they are.
func StartFailure(err error) error {
	var se *spawn.StartError
	if errors.As(err, &se) {
		return fault.Usage(se)
	}
	return err
}
