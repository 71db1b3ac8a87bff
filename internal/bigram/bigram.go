// Package bigram tells cheaply which lines cannot hold any of a set of
// literals, so that a costlier matcher (an Aho–Corasick automaton, a few
// bytes.Contains) runs only on the lines that might.
//
// Each literal is anchored on one of its two-byte pairs, the rarest by a
// byte-frequency table of typical build and test output; a line that holds
// none of the anchors holds none of the literals. Checking a pair is a table
// load per byte that, unlike an automaton's step, does not depend on the
// previous byte's result, so the CPU runs several bytes at once. A single
// rare byte would not do: literals such as "crashed" are made of the
// letters every line of text has, while a pair such as "cr" is missing from
// most lines.
package bigram

import "encoding/binary"

// Filter holds the anchors of a set of literals. The zero Filter, and one
// built from a literal shorter than two bytes, passes every line.
type Filter struct {
	// pair[a|b<<8] is 1 when the pair "ab" anchors some literal.
	pair *[1 << 16]uint8
}

// New returns the filter for lits.
func New(lits []string) *Filter {
	f := &Filter{}
	for _, l := range lits {
		if len(l) < 2 {
			return f
		}
	}
	f.pair = new([1 << 16]uint8)
	for _, l := range lits {
		f.pair[anchor(l)] = 1
	}
	return f
}

// anchor is the index of lit's rarest pair (the first of equals).
func anchor(lit string) uint16 {
	best, bestScore := uint16(0), -1
	for i := 0; i+1 < len(lit); i++ {
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
	pair := f.pair
	if pair == nil {
		return true
	}
	if len(line) < 2 {
		return false
	}
	// Eight pairs a round from one 8-byte load, their table bytes ORed: one
	// branch per round, and table loads that do not wait on each other.
	// The table is indexed by the pair's bytes in little-endian order.
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
		if pair[uint16(line[i])|uint16(line[i+1])<<8] != 0 {
			return true
		}
	}
	return false
}
