package store

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// A prefilter finds the lines that can match a pattern without running the
// regexp over every byte: it holds literals of which every match contains at
// least one, so only lines holding one of them need the regexp. Go's regexp
// engine scans fast only for a literal prefix; bytes.Index is a vectorised
// scan, so "[0-9]+: error", "warning|error" and "(?i)error" search at close to
// memory speed instead of tens of MB/s.
type prefilter struct {
	lits []needle // lowered when fold
	fold bool     // compare ASCII-lowered text (some literal is case-insensitive)
	// foldsOutsideASCII: a folded literal holds k or s, which also match the
	// Kelvin sign and the long s; chunks holding either skip the prefilter.
	foldsOutsideASCII bool
	lower             []byte // scratch: the lowered chunk
}

// Limits on a useful literal set: more literals cost one scan each, and very
// short ones select most lines anyway.
const (
	maxPrefilterLits   = 8
	minPrefilterLitLen = 2
)

// newPrefilter analyses pattern (already known to compile) and returns nil
// when no useful literal set exists, e.g. for `^\d+$`.
func newPrefilter(pattern string) *prefilter {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	set, ok := required(re.Simplify())
	if !ok || len(set) == 0 || len(set) > maxPrefilterLits {
		return nil
	}
	p := &prefilter{}
	for _, l := range set {
		if len(l.s) < minPrefilterLitLen {
			return nil
		}
		if l.fold {
			if !isASCII(l.s) {
				return nil // Unicode folding is not a byte-wise lowering
			}
			p.fold = true
		}
	}
	for _, l := range set {
		s := l.s
		if p.fold {
			s = strings.ToLower(s)
			if l.fold && strings.ContainsAny(s, "ks") {
				p.foldsOutsideASCII = true
			}
		}
		p.lits = append(p.lits, needle{lit: []byte(s)})
	}
	return p
}

// literal is one required string; fold means it matches case-insensitively.
type literal struct {
	s    string
	fold bool
}

// required returns literals of which every match of re contains one
// (ok=false: no such set is known).
func required(re *syntax.Regexp) (set []literal, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []literal{{string(re.Rune), re.Flags&syntax.FoldCase != 0}}, true
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
		return nil, false
	case syntax.OpConcat:
		// Any one part's set will do; take the one whose shortest literal is
		// longest (the most selective).
		best, bestLen := []literal(nil), -1
		for _, sub := range re.Sub {
			s, ok := required(sub)
			if !ok {
				continue
			}
			if n := shortest(s); n > bestLen {
				best, bestLen = s, n
			}
		}
		return best, bestLen >= 0
	case syntax.OpAlternate:
		// A match matches one branch: every branch must contribute.
		var all []literal
		for _, sub := range re.Sub {
			s, ok := required(sub)
			if !ok {
				return nil, false
			}
			all = append(all, s...)
		}
		return all, true
	}
	return nil, false
}

func shortest(set []literal) int {
	n := -1
	for _, l := range set {
		if n < 0 || len(l.s) < n {
			n = len(l.s)
		}
	}
	return max(n, 0)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// usable reports whether the prefilter is sound for data.
func (p *prefilter) usable(data []byte) bool {
	return !p.foldsOutsideASCII || (!bytes.Contains(data, []byte("\u212a")) && !bytes.Contains(data, []byte("\u017f")))
}

// candidates calls f with the bounds of each line of data that holds one of
// the literals, in order, until f returns false.
func (p *prefilter) candidates(data []byte, f func(start, end int) bool) {
	text := data
	if p.fold {
		p.lower = asciiLower(p.lower[:0], data)
		text = p.lower
	}
	var freq [256]int
	for _, c := range text[:min(len(text), rareSample)] {
		freq[c]++
	}
	// next[i] is where lits[i] next occurs at or after pos (-1: nowhere).
	next := make([]int, len(p.lits))
	pos := 0
	for i := range p.lits {
		p.lits[i].pickRare(&freq)
		next[i] = p.lits[i].index(text, 0)
	}
	for {
		at := -1
		for _, n := range next {
			if n >= 0 && (at < 0 || n < at) {
				at = n
			}
		}
		if at < 0 {
			return
		}
		start := bytes.LastIndexByte(text[pos:at], '\n') + 1 + pos
		end := lineEnd(text, at)
		if !f(start, end) {
			return
		}
		pos = min(end+1, len(text))
		for i, n := range next {
			if n >= 0 && n < pos {
				next[i] = p.lits[i].index(text, pos)
			}
		}
	}
}

// rareSample is how much of a chunk is sampled to rank byte frequencies.
const rareSample = 16 << 10

// A needle is a literal and the offset of its byte that is rarest in the
// text being searched: scanning for that byte with IndexByte (memchr speed)
// and checking the literal around each hit beats bytes.Index, which scans for
// the first byte, when that byte is common ("s" in "segmentation fault").
type needle struct {
	lit  []byte
	rare int
}

func (n *needle) pickRare(freq *[256]int) {
	n.rare = 0
	for i, c := range n.lit {
		if freq[c] < freq[n.lit[n.rare]] {
			n.rare = i
		}
	}
}

// index is the position of the literal in text at or after from, or -1.
func (n *needle) index(text []byte, from int) int {
	rareByte := n.lit[n.rare]
	fails := 0
	for pos := from + n.rare; pos < len(text); {
		i := bytes.IndexByte(text[pos:], rareByte)
		if i < 0 {
			return -1
		}
		at := pos + i - n.rare
		if at+len(n.lit) <= len(text) && bytes.Equal(text[at:at+len(n.lit)], n.lit) {
			return at
		}
		pos += i + 1
		// The sample misjudged: the byte is common here. bytes.Index bounds
		// the work whatever the text.
		if fails++; fails > 8+(pos-from)>>5 {
			if j := bytes.Index(text[at+1:], n.lit); j >= 0 {
				return at + 1 + j
			}
			return -1
		}
	}
	return -1
}

// asciiLower appends data to dst with ASCII letters lowered; byte offsets are
// unchanged.
func asciiLower(dst, data []byte) []byte {
	dst = slices.Grow(dst, len(data))[:len(data)]
	for i, c := range data {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
	return dst
}
