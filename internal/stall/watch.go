package stall

import (
	"context"
	"time"
)

// DefaultEvery is how often Watch samples a group: a second keeps the cost
// of reading /proc far below 1% of a core and a stall found within a
// second of the limit.
const DefaultEvery = time.Second

// Options tune Watch.
type Options struct {
	// Limit is how long a group must show no progress; <= 0 turns the
	// watch off.
	Limit time.Duration
	// Every is the time between samples; 0 means DefaultEvery.
	Every time.Duration
	// Output, when set, counts the bytes the group has written so far.
	Output func() int64
}

// Watch samples the process group pgid until it stalls (true, with what
// it was blocked in) or ctx ends (false). Where the system cannot be
// sampled, it waits for ctx and finds nothing.
func Watch(ctx context.Context, pgid int, opts Options) (Finding, bool) {
	if opts.Limit <= 0 || !Supported {
		return Finding{}, false
	}
	every := opts.Every
	if every <= 0 {
		every = DefaultEvery
	}
	d := Detector{Limit: opts.Limit}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		s := Sample{Threads: Group(pgid), At: time.Now()}
		if opts.Output != nil {
			s.Output = opts.Output()
		}
		if f, ok := d.Observe(s); ok {
			return f, true
		}
		select {
		case <-ctx.Done():
			return Finding{}, false
		case <-t.C:
		}
	}
}
