package coverage

import (
	"fmt"
	"math"
)

// solve finds every arc's and block's count from the counted arcs' (those
// off the spanning tree), as gcov's solve_flow_graph does: a block whose
// arcs in or out are all known has their sum for count, and a known block
// with one unknown arc in or out gives that arc the difference. A graph
// left unsolved keeps zeros where it is unknown, as gcov's does.
func (fn *gcovFunc) solve() error {
	nb := fn.blocks
	if nb < 2 {
		return fmt.Errorf("%w: %s lacks its entry or exit block", errGcovNative, fn.name)
	}
	fn.succs, fn.preds = make([][]int, nb), make([][]int, nb)
	for i, a := range fn.arcs {
		fn.succs[a.src] = append(fn.succs[a.src], i)
		fn.preds[a.dst] = append(fn.preds[a.dst], i)
	}
	if len(fn.preds[0]) > 0 || len(fn.succs[1]) > 0 {
		return fmt.Errorf("%w: %s has arcs into its entry or out of its exit", errGcovNative, fn.name)
	}
	s := flowSolver{fn: fn, arcKnown: make([]bool, len(fn.arcs)), blockKnown: make([]bool, nb),
		unknownOut: make([]int, nb), unknownIn: make([]int, nb), onInvalid: make([]bool, nb), onValid: make([]bool, nb)}
	fn.arcCount, fn.blockCount = make([]int64, len(fn.arcs)), make([]int64, nb)
	for b := range nb {
		s.unknownOut[b], s.unknownIn[b] = len(fn.succs[b]), len(fn.preds[b])
	}
	// Nothing is learnt from the entry's lack of arcs in, nor the exit's
	// of arcs out.
	s.unknownIn[0], s.unknownOut[1] = math.MaxInt, math.MaxInt
	if err := s.countMeasured(); err != nil {
		return err
	}
	s.propagate()
	return nil
}

// flowSolver is solve's state: gcov's "invalid" blocks (count unknown, to
// try) and "valid" ones (count known, arcs to try).
type flowSolver struct {
	fn                   *gcovFunc
	arcKnown, blockKnown []bool
	unknownOut           []int
	unknownIn            []int
	invalid, valid       []int
	onInvalid, onValid   []bool
}

// countMeasured gives the arcs off the tree the data's counts, block by
// block in order, as gcc numbered its counters.
func (s *flowSolver) countMeasured() error {
	fn, next := s.fn, 0
	for b := range fn.blocks {
		for _, a := range fn.succs[b] {
			if fn.arcs[a].onTree {
				continue
			}
			if next >= len(fn.counts) {
				return fmt.Errorf("%w: %s has more arcs than counters", errGcovNative, fn.name)
			}
			fn.arcCount[a], s.arcKnown[a] = fn.counts[next], true
			next++
			s.unknownOut[b]--
			s.unknownIn[fn.arcs[a].dst]--
		}
		s.invalid = append(s.invalid, b)
		s.onInvalid[b] = true
	}
	return nil
}

func (s *flowSolver) propagate() {
	fn := s.fn
	for len(s.invalid) > 0 || len(s.valid) > 0 {
		for len(s.invalid) > 0 {
			b := s.invalid[len(s.invalid)-1]
			s.invalid, s.onInvalid[b] = s.invalid[:len(s.invalid)-1], false
			var arcs []int
			switch {
			case s.unknownOut[b] == 0:
				arcs = fn.succs[b]
			case s.unknownIn[b] == 0:
				arcs = fn.preds[b]
			default:
				continue
			}
			var total int64
			for _, a := range arcs {
				total += fn.arcCount[a]
			}
			fn.blockCount[b], s.blockKnown[b] = total, true
			s.pushValid(b)
		}
		for len(s.valid) > 0 {
			b := s.valid[len(s.valid)-1]
			s.valid, s.onValid[b] = s.valid[:len(s.valid)-1], false
			if s.unknownOut[b] == 1 {
				s.solveLast(b, fn.succs[b], true)
			}
			if s.unknownIn[b] == 1 {
				s.solveLast(b, fn.preds[b], false)
			}
		}
	}
}

// solveLast gives a known block's one unknown arc out (or in) the
// difference, and queues the block at its other end.
func (s *flowSolver) solveLast(b int, arcs []int, out bool) {
	fn := s.fn
	total, last := fn.blockCount[b], -1
	for _, a := range arcs {
		total -= fn.arcCount[a]
		if !s.arcKnown[a] {
			last = a
		}
	}
	if last < 0 {
		return
	}
	fn.arcCount[last], s.arcKnown[last] = total, true
	other := fn.arcs[last].dst
	if !out {
		other = fn.arcs[last].src
	}
	if out {
		s.unknownOut[b]--
		s.unknownIn[other]--
	} else {
		s.unknownIn[b]--
		s.unknownOut[other]--
	}
	otherUnknown := s.unknownIn[other]
	if !out {
		otherUnknown = s.unknownOut[other]
	}
	switch {
	case s.blockKnown[other] && otherUnknown == 1:
		s.pushValid(other)
	case !s.blockKnown[other] && otherUnknown == 0 && !s.onInvalid[other]:
		s.invalid = append(s.invalid, other)
		s.onInvalid[other] = true
	}
}

func (s *flowSolver) pushValid(b int) {
	if !s.onValid[b] {
		s.valid = append(s.valid, b)
		s.onValid[b] = true
	}
}
