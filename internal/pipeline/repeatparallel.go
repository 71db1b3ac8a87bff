package pipeline

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// ranRun is one run of triage's loop as it ended: done false for a run
// never started.
type ranRun struct {
	run  RepeatRun
	err  error
	done bool
}

// InParallel calls one for each of from to to, k at once, handing the
// numbers out in order; none is handed out once a call has returned stop
// or ctx is done (those running finish). ran[i-from] is call i's result,
// done[i-from] whether it was made.
func InParallel[T any](ctx context.Context, k, from, to int, one func(i int) (res T, stop bool)) (ran []T, done []bool) {
	n := max(to-from+1, 0)
	ran, done = make([]T, n), make([]bool, n)
	var next atomic.Int64
	next.Store(int64(from))
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range min(k, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() && ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i > to {
					return
				}
				res, halt := one(i)
				ran[i-from], done[i-from] = res, true
				if halt {
					stop.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	return ran, done
}

// repeatParallel runs runs from to rp.Times, rp.Parallel at once (each
// with its own output, the test step only: the first run built), and
// returns them in order. No run starts once one has ended the repeat (an
// error, a run that did not judge its tests, a failure under
// until_fail) or the time limit is reached.
func (c Call) repeatParallel(ctx context.Context, rp Repeat, from int, deadline time.Time) []ranRun {
	runs, _ := InParallel(ctx, rp.Parallel, from, rp.Times, func(i int) (ranRun, bool) {
		run, ok := c.repeatRunCall(i, rp.Times, deadline)
		if !ok {
			return ranRun{}, true
		}
		rr, err := run.repeatOnce(ctx)
		stop := err != nil || !judged(rr.Called.Result, deadline) || rp.UntilFail && len(Occurrences(rr.Called.Result)) > 0
		return ranRun{run: rr, err: err, done: true}, stop
	})
	return runs
}
