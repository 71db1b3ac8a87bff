// Package background keeps programs running in the background between
// tool calls: process_start starts one, process_output reads what it printed
// so far from a line cursor, process_stop ends it and returns its verdict.
//
// Each job's combined output is captured (internal/capture: the store, an
// excerpt); it is committed at least every FlushEvery so that process_output
// sees recent lines. When the program ends, on its own or by Stop, the run
// is concluded like any other (core dump, backtrace, verdict) and kept for
// listing until the Manager is closed. A job belongs to the identity that
// started it (internal/identity): to another, Get, Output and Stop answer as
// for an unknown id, and List leaves it out. Close stops every job still running, so no child outlives triage.
package background

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/identity"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/tick"
)

// FlushEvery bounds how stale process_output can be.
const FlushEvery = 200 * time.Millisecond

// Manager owns the background jobs of one triage process.
type Manager struct {
	store  *store.Store
	budget int             // of each job's excerpt, in bytes
	base   context.Context // jobs live until Close, not until the call that started them
	stop   context.CancelFunc

	mu   sync.Mutex
	jobs map[string]*Job // guarded by mu
	seq  int             // guarded by mu
}

// New returns a manager storing output in s, whose jobs' excerpts are at
// most budget bytes.
func New(s *store.Store, budget int) *Manager {
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{store: s, budget: budget, base: ctx, stop: cancel, jobs: make(map[string]*Job)}
}

// Numbers, when set, numbers new processes in place of each manager's
// own count: the CLI's daemon draws the numbers from a count all its
// user's daemons share, so that an id names one process across them. Set
// once, before any manager starts a process.
var Numbers func() int

// Ending says, in the verdict of each job Close stops, why it was
// stopped: "as triage ended" (a client that hung up), or, set by the
// CLI's daemon, "as the daemon stopped". Set once, before any Close.
var Ending = "as triage ended"

// Job is one background program.
type Job struct {
	ID       string
	Program  string
	Argv     []string
	Dir      string
	Host     string // the ssh host it runs on, "" for this one
	Pid      int    // on this host: for a Host's program, the ssh command's
	Started  time.Time
	OutputID string

	owner string // the identity that started it
	run   *capture.Running
	out   *capture.Capture
	check *capture.Checker // the checker it runs under, nil for none
	done  chan struct{}    // closed when outcome is set

	mu      sync.Mutex
	outcome *capture.Outcome // guarded by mu; nil while running
	stored  capture.Result   // guarded by mu; set with outcome
}

// Outcome returns the job's outcome, or nil while it runs.
func (j *Job) Outcome() *capture.Outcome {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.outcome
}

// Stored is what was kept of the job's output (see capture.Result), once
// it has ended; the zero Result while it runs.
func (j *Job) Stored() capture.Result {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stored
}

// Done is closed once the job has ended and been concluded.
func (j *Job) Done() <-chan struct{} { return j.done }

// Start starts req's program in the background (req.Remote: on that host),
// capturing its output into a store entry of its own; the request's
// Output, OutputID and KeepCores are the manager's.
func (m *Manager) Start(ctx context.Context, req capture.Request) (*Job, error) {
	return m.StartChecked(ctx, req, capture.CheckNone)
}

// StartChecked is Start under a checker from the program's start
// (capture.PrepareCheck): the checker's report, once the program has
// ended, is the outcome's Memcheck and makes its verdict a failure.
func (m *Manager) StartChecked(ctx context.Context, req capture.Request, c capture.Check) (*Job, error) {
	check, err := capture.PrepareCheck(&req, c)
	if err != nil {
		return nil, err
	}
	spec := req.Spec
	out, err := capture.Open(ctx, m.store, store.Meta{Tool: "process_start", Argv: spec.Argv, Cwd: spec.Dir}, capture.Options{Budget: m.budget})
	if err != nil {
		check.Discard()
		return nil, err
	}
	req.Output, req.OutputID, req.KeepCores = out, out.ID(), m.store.CoreDir(out.ID())
	run, err := capture.Start(m.base, req)
	if err != nil {
		out.Abort()
		check.Discard()
		return nil, err
	}
	m.mu.Lock()
	m.seq++
	n := m.seq
	if Numbers != nil {
		n = Numbers()
	}
	j := &Job{
		ID: fmt.Sprintf("p%d", n), Program: req.Program, Argv: spec.Argv, Dir: spec.Dir, Host: req.Remote.Name(),
		Pid: run.Pid(), Started: time.Now(), OutputID: out.ID(),
		owner: identity.Of(ctx).ID, run: run, out: out, check: check, done: make(chan struct{}),
	}
	m.jobs[j.ID] = j
	m.mu.Unlock()
	// Buffered output is passed on (upstream, the runner's blocks) and
	// committed every FlushEvery while the program runs.
	flush := tick.Start(m.base, FlushEvery, func() { j.commit() })
	go func() {
		o := run.Wait(m.base)
		flush.Stop()
		j.finish(m.store, o)
	}()
	return j, nil
}

// commit passes the runner's buffered output on and commits it, returning
// a channel closed at the next commit that adds lines.
func (j *Job) commit() <-chan struct{} {
	j.run.Flush()
	return j.out.Commit()
}

func (j *Job) finish(st *store.Store, o *capture.Outcome) {
	j.check.Conclude(context.Background(), st, o) // before the verdict is stored: a report makes it a failure
	stored := j.out.Finish(context.Background(), store.Final{Status: string(o.Verdict.Status), VerdictLine: o.Verdict.Line, ExitCode: o.Result.ExitCode})
	j.mu.Lock()
	j.outcome, j.stored = o, stored
	j.mu.Unlock()
	close(j.done)
}

// Get returns a job by id, if the caller in ctx may see it.
func (m *Manager) Get(ctx context.Context, id string) (*Job, error) {
	who := identity.Of(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	j, ok := m.jobs[id]
	if !ok || !who.Sees(j.owner) {
		ids := make([]string, 0, len(m.jobs))
		for k, j := range m.jobs {
			if who.Sees(j.owner) {
				ids = append(ids, k)
			}
		}
		sort.Strings(ids)
		if len(ids) == 0 {
			return nil, fault.NotFoundf("no process %q: no background process was started (process_start starts one)", id)
		}
		return nil, fault.NotFoundf("no process %q; known: %v (process_list shows them)", id, ids)
	}
	return j, nil
}

// List returns the jobs the caller in ctx may see, oldest first.
func (m *Manager) List(ctx context.Context) []*Job {
	who := identity.Of(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Job, 0, len(m.jobs))
	for _, j := range m.jobs {
		if who.Sees(j.owner) {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Started.Before(out[b].Started) })
	return out
}

// Output returns lines [cursor, cursor+limit) of a job's output, as far as it
// has been written. When there is nothing past cursor yet and the job runs,
// it waits up to wait for new output or the job's end.
func (m *Manager) Output(ctx context.Context, id string, cursor, limit int, wait time.Duration) (store.Page, error) {
	_, p, err := m.Page(ctx, id, cursor, limit, wait)
	return p, err
}

// Page is Output that also returns the job.
func (m *Manager) Page(ctx context.Context, id string, cursor, limit int, wait time.Duration) (*Job, store.Page, error) {
	j, err := m.Get(ctx, id)
	if err != nil {
		return nil, store.Page{}, err
	}
	p, err := m.page(ctx, j, cursor, limit, wait)
	return j, p, err
}

func (m *Manager) page(ctx context.Context, j *Job, cursor, limit int, wait time.Duration) (store.Page, error) {
	changed := j.commit()
	info, err := m.store.Info(ctx, j.OutputID)
	if err != nil {
		return store.Page{}, err
	}
	if cursor >= info.Lines && wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-changed:
		case <-j.done:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		j.out.Commit()
		if info, err = m.store.Info(ctx, j.OutputID); err != nil {
			return store.Page{}, err
		}
	}
	if !info.Finished.IsZero() {
		// The output ends (and wakes a wait) a moment before finish records
		// the job's outcome: the answer waits for that too, or it would say
		// that a job that has ended is running.
		select {
		case <-j.done:
		case <-ctx.Done():
		}
	}
	if cursor >= info.Lines { // nothing new yet: not an error for a live job
		return store.Page{Entry: info, Offset: cursor, TotalLines: info.Lines}, nil
	}
	return m.store.Page(ctx, j.OutputID, cursor, limit)
}

// Stop ends a job (SIGTERM to its group, SIGKILL after grace) and returns its
// outcome; stopping a job that already ended returns how it ended.
func (m *Manager) Stop(ctx context.Context, id string, grace time.Duration) (*Job, error) {
	return m.endJob(ctx, id, func(j *Job) { j.run.End(grace) })
}

// StopStuck is Stop for a person's or an agent's stop of a program they
// may think hung: one blocked at the moment has its stacks taken first
// (capture.EndStuck). A job stopped by design (a log stream that waits for
// lines) is ended with Stop: a stack dump would only add to its output.
func (m *Manager) StopStuck(ctx context.Context, id string, grace time.Duration) (*Job, error) {
	return m.endJob(ctx, id, func(j *Job) { j.run.EndStuck(grace) })
}

func (m *Manager) endJob(ctx context.Context, id string, end func(*Job)) (*Job, error) {
	j, err := m.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	select {
	case <-j.done:
	default:
		end(j)
		select {
		case <-j.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return j, nil
}

// Close stops every running job and waits for them. A job blocked at the
// moment has its stacks taken first, as StopStuck's are, so that its
// stored output and verdict say where it was stuck when triage (the
// daemon) ended, and each verdict says why it was stopped (Ending):
//
//	INTERRUPTED after 2m3s — process group stopped as the daemon stopped; it was stuck: deadlocked: …
//
// The jobs end all at once, so that the whole takes at most
// the stacks' bound (capture.StopStacksLimit) and a second's grace, not
// that for each.
func (m *Manager) Close() error {
	var wg sync.WaitGroup
	for _, j := range m.List(context.Background()) { // the server's own: every job
		select {
		case <-j.done:
			continue
		default:
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			j.run.EndStuckAs(time.Second, Ending)
			<-j.done
		}()
	}
	wg.Wait()
	m.stop()
	return nil
}
