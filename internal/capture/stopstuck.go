package capture

import (
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/stall"
	"github.com/triage-dev/triage/internal/verdict"
)

// StopStacksLimit bounds the stacks EndStuck takes before a stop: a
// person or agent waits for them.
const StopStacksLimit = 5 * time.Second

// stuckLimit is the timer a waiting thread may have and still count as
// stuck for EndStuck: the stall watch's default, so that a program
// waiting on a shorter timer is stopped as any other.
const stuckLimit = 30 * time.Second

// EndStuck is End for a stop that asks where a stuck program was: a
// local run whose group is blocked at this moment (one sample of the
// stall rule: every thread waits, none on a timer) has its stacks taken
// first, as a timeout's are (within StopStacksLimit), and its verdict
// says where it was stuck:
//
//	INTERRUPTED after 15s — process group stopped; it was stuck: in main, blocked in read at piperead.c:11
//
// A running, sleeping or remote program is ended with no stacks.
func (r *Running) EndStuck(grace time.Duration) {
	p, ok := r.proc.(*spawn.Process)
	if ok && r.host == nil && !r.req.NoHangStacks && stall.Blocked(stall.Group(p.Pid()), stuckLimit) {
		_, _ = p.StopWithStacks(grace)
		return
	}
	r.End(grace)
}

// EndStuckAs is EndStuck by someone other than the caller who started
// the program, whose verdict says so (why: "as the daemon stopped"):
//
//	INTERRUPTED after 15s — process group stopped as the daemon stopped; it was stuck: deadlocked: …
func (r *Running) EndStuckAs(grace time.Duration, why string) {
	r.why.Store(&why)
	r.EndStuck(grace)
}

// stoppedWhy is v's line with why the group was stopped (EndStuckAs)
// after "process group stopped"; any other line is v's as it is.
func (r *Running) stoppedWhy(v verdict.Verdict, res *spawn.Result) string {
	why := r.why.Load()
	const stopped = " — process group stopped"
	if why == nil || *why == "" || v.Status != verdict.StatusInterrupted || !res.Cancelled {
		return v.Line
	}
	return strings.Replace(v.Line, stopped, stopped+" "+*why, 1)
}
