// Package bigram tells cheaply which lines cannot hold any of a set of
// literals, so that a costlier matcher (an Aho–Corasick automaton, a few
// bytes.Contains) runs only on the lines that might.
//
// Each literal is anchored on its two-byte pairs that are rarest by a
// byte-frequency table of typical build and test output; a line that holds
// none of the anchors holds none of the literals. Checking a pair is a table
// load that, unlike an automaton's step, does not depend on the previous
// byte's result, so the CPU runs several at once. A single rare byte would
// not do: literals such as "crashed" are made of the letters every line of
// text has, while a pair such as "cr" is missing from most lines.
//
// When every literal has three bytes or more, only the pairs starting at
// even offsets of the line are checked, half of them: an occurrence
// starting at an even offset covers a pair at an even offset of the literal
// and one starting at an odd offset a pair at an odd offset, so each
// literal has two anchors, the rarest pair of each parity.
package bigram

import "encoding/binary"

// Filter holds the anchors of a set of literals. The zero Filter, and one
// built from a literal shorter than two bytes, passes every line.
type Filter struct {
	// pair[a|b<<8] is 1 when the pair "ab" anchors some literal.
	pair *[1 << 16]uint8
	// aligned: anchors of both parities, only even offsets are checked.
	aligned bool
}

// New returns the filter for lits.
func New(lits []string) *Filter {
	f := &Filter{aligned: true}
	for _, l := range lits {
		if len(l) < 2 {
			return &Filter{}
		}
		f.aligned = f.aligned && len(l) >= 3
	}
	f.pair = new([1 << 16]uint8)
	for _, l := range lits {
		if f.aligned {
			f.pair[rarestPair(l, 0, 2)] = 1
			f.pair[rarestPair(l, 1, 2)] = 1
		} else {
			f.pair[rarestPair(l, 0, 1)] = 1
		}
	}
	return f
}

// rarestPair is the index of lit's rarest pair (the first of equals) among
// those at offsets from, from+step, ...
func rarestPair(lit string, from, step int) uint16 {
	best, bestScore := uint16(0), -1
	for i := from; i+1 < len(lit); i += step {
		score := pairCommonness(lit[i], lit[i+1])
		if bestScore < 0 || score < bestScore {
			best, bestScore = uint16(lit[i])|uint16(lit[i+1])<<8, score
		}
	}
	return best
}

// Maybe reports whether line may hold one of the literals: false means it
// holds none.
func (f *Filter) Maybe(line []byte) bool {
	switch {
	case f.pair == nil:
		return true
	case f.aligned:
		return f.anyEvenPair(line)
	}
	return f.anyPair(line)
}

// anyEvenPair reports whether an anchor starts at an even offset of line.
// Sixteen bytes a round from two 8-byte loads, their table bytes ORed: one
// branch per round, and table loads that do not wait on each other. The
// table is indexed by the pair's bytes in little-endian order.
func (f *Filter) anyEvenPair(line []byte) bool {
	pair := f.pair
	i := 0
	for ; i+16 <= len(line); i += 16 {
		x := binary.LittleEndian.Uint64(line[i:])
		y := binary.LittleEndian.Uint64(line[i+8:])
		if pair[uint16(x)]|pair[uint16(x>>16)]|pair[uint16(x>>32)]|pair[uint16(x>>48)]|
			pair[uint16(y)]|pair[uint16(y>>16)]|pair[uint16(y>>32)]|pair[uint16(y>>48)] != 0 {
			return true
		}
	}
	for ; i+1 < len(line); i += 2 {
		if pair[binary.LittleEndian.Uint16(line[i:])] != 0 {
			return true
		}
	}
	return false
}

// anyPair reports whether an anchor starts anywhere in line, eight pairs a
// round.
func (f *Filter) anyPair(line []byte) bool {
	pair := f.pair
	i := 0
	for ; i+8 < len(line); i += 8 {
		x := binary.LittleEndian.Uint64(line[i:])
		last := uint16(x>>56) | uint16(line[i+8])<<8
		if pair[uint16(x)]|pair[uint16(x>>8)]|pair[uint16(x>>16)]|pair[uint16(x>>24)]|
			pair[uint16(x>>32)]|pair[uint16(x>>40)]|pair[uint16(x>>48)]|pair[last] != 0 {
			return true
		}
	}
	for ; i+1 < len(line); i++ {
		if pair[binary.LittleEndian.Uint16(line[i:])] != 0 {
			return true
		}
	}
	return false
}
