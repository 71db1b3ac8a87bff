package bisect

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"time"
)

// Mark is a judge's word on one revision.
type Mark int

const (
	// Skip: the revision cannot be judged (it does not build, no test
	// ran, it failed in another way than the failure sought).
	Skip Mark = iota
	// Good: the failure sought is not there.
	Good
	// Bad: the failure sought is there.
	Bad
)

// String is the mark as the answer and progress name it.
func (m Mark) String() string {
	switch m {
	case Good:
		return "good"
	case Bad:
		return "bad"
	}
	return "skip"
}

// Probe is one revision about to be judged: its index in the range, the
// step's number (from 1) and the number of steps the search expects to
// take in all, this one included (an estimate: a skip adds steps).
type Probe struct {
	Index, Step, Estimate int
}

// Judge judges revision p.Index of the range. Its error ends the search.
type Judge func(ctx context.Context, p Probe) (Mark, error)

// Limits bound a search; zero values bound nothing.
type Limits struct {
	// Steps is the most revisions judged, the two ends included.
	Steps int
	// Deadline: no step starts after it (a step running goes on to its end,
	// bounded by its own time limit).
	Deadline time.Time
	// Now is the clock Deadline is read against; nil is time.Now.
	Now func() time.Time
}

// Step is one revision judged.
type Step struct {
	Index int
	Mark  Mark
}

// Result is where a search ended. Lo is the newest revision known good,
// Hi the oldest known bad: the first bad revision is in (Lo, Hi], found
// when Hi is Lo's successor; otherwise the ones between were skipped, or
// the search stopped (Stopped says why) before it could tell.
type Result struct {
	Steps  []Step
	Lo, Hi int
	// Stopped is why the search ended before it could narrow further:
	// the step or time limit; "" when it ran to its end.
	Stopped string
}

// Found reports whether the first bad revision is known: Hi.
func (r Result) Found() bool { return r.Hi == r.Lo+1 }

// Candidates are the revisions the first bad one is among, oldest first:
// Hi alone when found.
func (r Result) Candidates() []int {
	var out []int
	for i := r.Lo + 1; i <= r.Hi; i++ {
		out = append(out, i)
	}
	return out
}

// Errors of the range's ends: the search needs a bad end that is bad and
// a good end that is not.
var (
	ErrBadNotBad = errors.New("the bad revision does not show the failure")
	ErrGoodIsBad = errors.New("the good revision shows the failure too")
)

// Search finds the first bad revision of a range of n (index 0 the good
// end, n-1 the bad end; n ≥ 2) in which the revisions are assumed to turn
// from good to bad once. It judges the bad end first (the failure sought
// is the one it shows), then the good end, then bisects what lies
// between; a skipped revision is passed over for its nearest neighbour
// not yet judged, as git bisect skip does, and the first bad revision is
// then only known to be among the skipped ones and Hi. A good end that
// cannot be judged is taken as good (the caller said so). On an error the
// result is the search so far.
func Search(ctx context.Context, n int, judge Judge, lim Limits) (Result, error) {
	s := &search{n: n, judge: judge, lim: lim, skipped: map[int]bool{}, res: Result{Lo: 0, Hi: n - 1}}
	if n < 2 {
		return s.res, fmt.Errorf("a range of %d revisions: it needs a good and a bad end", n)
	}
	m, err := s.probe(ctx, n-1)
	if err != nil || m != Bad {
		return s.res, endErr(err, ErrBadNotBad)
	}
	if s.stopped() {
		return s.res, nil
	}
	if m, err = s.probe(ctx, 0); err != nil || m == Bad {
		return s.res, endErr(err, ErrGoodIsBad)
	}
	for {
		i, ok := s.next()
		if !ok || s.stopped() {
			break
		}
		m, err := s.probe(ctx, i)
		if err != nil {
			return s.res, err
		}
		switch m {
		case Good:
			s.res.Lo = i
		case Bad:
			s.res.Hi = i
		default:
			s.skipped[i] = true
		}
	}
	return s.res, nil
}

// endErr is err, else the end's own error.
func endErr(err, end error) error {
	if err != nil {
		return err
	}
	return end
}

type search struct {
	n       int
	judge   Judge
	lim     Limits
	skipped map[int]bool
	res     Result
}

// probe judges revision i as the next step.
func (s *search) probe(ctx context.Context, i int) (Mark, error) {
	p := Probe{Index: i, Step: len(s.res.Steps) + 1}
	p.Estimate = p.Step + s.remaining(i)
	m, err := s.judge(ctx, p)
	if err != nil {
		return m, err
	}
	s.res.Steps = append(s.res.Steps, Step{Index: i, Mark: m})
	return m, nil
}

// remaining estimates the steps after the one judging i: the ends still
// to judge, then one step per halving of the revisions left between Lo
// and Hi that are neither skipped nor i.
func (s *search) remaining(i int) int {
	ends := 0
	switch len(s.res.Steps) {
	case 0:
		ends = 1 // the good end, after the bad
	case 1:
		ends = 0
	}
	left := 0
	for j := s.res.Lo + 1; j < s.res.Hi; j++ {
		if !s.skipped[j] && j != i {
			left++
		}
	}
	if len(s.res.Steps) > 1 && left > 0 {
		left = (left + 1) / 2 // this step halves them, at worst
	}
	return ends + bits.Len(uint(left))
}

// next is the revision to judge next: the middle of (Lo, Hi), or the
// nearest to it not skipped; false when every one between is skipped.
func (s *search) next() (int, bool) {
	lo, hi := s.res.Lo, s.res.Hi
	mid := lo + (hi-lo)/2
	for d := 0; mid-d > lo || mid+d < hi; d++ {
		for _, i := range []int{mid + d, mid - d} {
			if i > lo && i < hi && !s.skipped[i] {
				return i, true
			}
		}
	}
	return 0, false
}

// stopped reports whether a limit keeps the next step from starting, and
// records which.
func (s *search) stopped() bool {
	switch {
	case s.lim.Steps > 0 && len(s.res.Steps) >= s.lim.Steps:
		s.res.Stopped = fmt.Sprintf("step limit (%d) reached", s.lim.Steps)
	case !s.lim.Deadline.IsZero() && !s.now().Before(s.lim.Deadline):
		s.res.Stopped = "time limit reached"
	default:
		return false
	}
	return true
}

func (s *search) now() time.Time {
	if s.lim.Now != nil {
		return s.lim.Now()
	}
	return time.Now()
}
