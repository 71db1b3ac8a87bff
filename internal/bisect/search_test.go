package bisect

import (
	"context"
	"errors"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// history is a fake judge over a range whose revisions turn bad at first
// and cannot be judged at skip (whatever they would say).
type history struct {
	first  int
	skip   map[int]bool
	probes []Probe
}

func (h *history) judge(_ context.Context, p Probe) (Mark, error) {
	h.probes = append(h.probes, p)
	switch {
	case h.skip[p.Index]:
		return Skip, nil
	case p.Index >= h.first:
		return Bad, nil
	}
	return Good, nil
}

func skips(ix ...int) map[int]bool {
	m := map[int]bool{}
	for _, i := range ix {
		m[i] = true
	}
	return m
}

// Without skips the first bad revision is found for every range and
// every place it can be, within ⌈log2(n-1)⌉ + 2 steps, bad end first; no
// revision is judged twice.
func TestSearchFindsFirstBadEverywhere(t *testing.T) {
	for n := 2; n <= 40; n++ {
		for first := 1; first < n; first++ {
			h := &history{first: first}
			res, err := Search(context.Background(), n, h.judge, Limits{})
			if err != nil || !res.Found() || res.Hi != first {
				t.Fatalf("n=%d first=%d: %+v, %v", n, first, res, err)
			}
			if max := 2 + bits.Len(uint(n-2)); len(res.Steps) > max {
				t.Errorf("n=%d first=%d: %d steps, want at most %d", n, first, len(res.Steps), max)
			}
			if res.Steps[0].Index != n-1 || res.Steps[1].Index != 0 {
				t.Errorf("n=%d: ends judged as %v, want the bad end then the good", n, res.Steps[:2])
			}
			seen := map[int]bool{}
			for _, s := range res.Steps {
				if seen[s.Index] {
					t.Fatalf("n=%d first=%d: revision %d judged twice: %v", n, first, s.Index, res.Steps)
				}
				seen[s.Index] = true
			}
		}
	}
}

// The estimate of steps is never below the step's number, and the
// first step's is the whole search's length when nothing is skipped.
func TestSearchEstimate(t *testing.T) {
	h := &history{first: 6}
	res, _ := Search(context.Background(), 10, h.judge, Limits{})
	if h.probes[0].Estimate != 2+bits.Len(8) {
		t.Errorf("first estimate %d, want %d", h.probes[0].Estimate, 2+bits.Len(8))
	}
	for i, p := range h.probes {
		if p.Step != i+1 || p.Estimate < p.Step || p.Estimate > h.probes[0].Estimate {
			t.Errorf("probe %d: %+v (first estimate %d)", i, p, h.probes[0].Estimate)
		}
	}
	if len(res.Steps) > h.probes[0].Estimate {
		t.Errorf("%d steps, more than the %d estimated", len(res.Steps), h.probes[0].Estimate)
	}
}

// A skipped revision is passed over for its neighbour; the first bad one
// is still found when the skipped are not next to it, and when one is,
// the answer is the skipped and the first bad known, never a guess.
func TestSearchSkips(t *testing.T) {
	cases := []struct {
		name  string
		n     int
		first int
		skip  map[int]bool
		lo    int
		hi    int
	}{
		{"skips apart from the boundary", 10, 6, skips(3, 4, 8), 5, 6},
		{"the middle skipped", 11, 3, skips(5), 2, 3},
		{"the one before skipped", 10, 6, skips(5), 4, 6},
		{"the first bad skipped", 10, 6, skips(6), 5, 7},
		{"every one between skipped", 6, 3, skips(1, 2, 3, 4), 0, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := &history{first: c.first, skip: c.skip}
			res, err := Search(context.Background(), c.n, h.judge, Limits{})
			if err != nil || res.Lo != c.lo || res.Hi != c.hi || res.Stopped != "" {
				t.Fatalf("%+v, %v; want lo %d hi %d", res, err, c.lo, c.hi)
			}
			if cand := res.Candidates(); !slices.Contains(cand, c.first) || res.Found() != (len(cand) == 1) {
				t.Errorf("candidates %v lack the first bad %d", cand, c.first)
			}
		})
	}
}

// Whatever is skipped, the first bad revision is among the candidates,
// and every revision judged good is before it, every one judged bad at
// or after it.
func TestSearchSkipsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := 2 + rng.IntN(60)
		first := 1 + rng.IntN(n-1)
		skip := map[int]bool{}
		for i := 1; i < n-1; i++ {
			if rng.IntN(4) == 0 {
				skip[i] = true
			}
		}
		h := &history{first: first, skip: skip}
		res, err := Search(context.Background(), n, h.judge, Limits{})
		if err != nil || !slices.Contains(res.Candidates(), first) {
			t.Fatalf("n=%d first=%d skip=%v: %+v, %v", n, first, skip, res, err)
		}
		for i := res.Lo + 1; i < res.Hi; i++ {
			if !skip[i] {
				t.Fatalf("n=%d first=%d: %d between lo and hi was never judged: %+v", n, first, i, res)
			}
		}
	}
}

// The ends: a bad end that is not bad, or a good end that is bad, ends
// the search with its error after that step; a good end that cannot be
// judged is taken as good.
func TestSearchEnds(t *testing.T) {
	h := &history{first: 10}
	res, err := Search(context.Background(), 10, h.judge, Limits{})
	if !errors.Is(err, ErrBadNotBad) || len(res.Steps) != 1 {
		t.Errorf("bad end good: %+v, %v", res, err)
	}
	h = &history{first: 0}
	res, err = Search(context.Background(), 10, h.judge, Limits{})
	if !errors.Is(err, ErrGoodIsBad) || len(res.Steps) != 2 {
		t.Errorf("good end bad: %+v, %v", res, err)
	}
	h = &history{first: 4, skip: skips(0)}
	res, err = Search(context.Background(), 10, h.judge, Limits{})
	if err != nil || !res.Found() || res.Hi != 4 || res.Steps[1].Mark != Skip {
		t.Errorf("good end skipped: %+v, %v", res, err)
	}
	if _, err := Search(context.Background(), 1, h.judge, Limits{}); err == nil {
		t.Error("a range of one revision was searched")
	}
}

// The step limit and the time limit stop the search between steps; what
// is known so far is the answer, and holds the first bad revision.
func TestSearchLimits(t *testing.T) {
	h := &history{first: 37}
	res, err := Search(context.Background(), 64, h.judge, Limits{Steps: 4})
	if err != nil || len(res.Steps) != 4 || res.Stopped != "step limit (4) reached" || !slices.Contains(res.Candidates(), 37) || res.Found() {
		t.Errorf("step limit: %+v, %v", res, err)
	}
	now := time.Unix(0, 0)
	clock := func() time.Time { return now }
	judge := func(ctx context.Context, p Probe) (Mark, error) {
		now = now.Add(time.Minute) // each step takes a minute
		return h.judge(ctx, p)
	}
	res, err = Search(context.Background(), 64, judge, Limits{Deadline: now.Add(150 * time.Second), Now: clock})
	if err != nil || len(res.Steps) != 3 || res.Stopped != "time limit reached" || !slices.Contains(res.Candidates(), 37) {
		t.Errorf("time limit: %+v, %v", res, err)
	}
	// A limit reached by the last step needed stops nothing.
	h = &history{first: 1}
	res, err = Search(context.Background(), 2, h.judge, Limits{Steps: 2})
	if err != nil || res.Stopped != "" || !res.Found() {
		t.Errorf("limit at the end: %+v, %v", res, err)
	}
}

// A judge's error (a cancelled call) ends the search with it and the
// steps so far.
func TestSearchJudgeError(t *testing.T) {
	h := &history{first: 5}
	boom := errors.New("cancelled")
	judge := func(ctx context.Context, p Probe) (Mark, error) {
		if p.Step == 3 {
			return Skip, boom
		}
		return h.judge(ctx, p)
	}
	res, err := Search(context.Background(), 10, judge, Limits{})
	if !errors.Is(err, boom) || len(res.Steps) != 2 {
		t.Errorf("%+v, %v", res, err)
	}
}
