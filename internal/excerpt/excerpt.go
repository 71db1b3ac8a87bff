// Package excerpt makes the bounded view of a long output that every triage
// response carries: the lines that explain a failure first (errors, crash
// indicators), then the head and the tail, within a byte budget, with markers
// saying what was left out. It streams: memory is bounded by the budget
// whatever the output's size.
package excerpt

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxLine bounds one kept line; longer lines are cut with a marker.
const MaxLine = 400

// Excerpt is the rendered view.
type Excerpt struct {
	Text       string `json:"text"`
	TotalLines int    `json:"total_lines"`
	Truncated  bool   `json:"truncated"` // some lines are not in Text
	Important  int    `json:"important"` // important lines seen, shown or not
}

// line is a kept line. Its bytes are owned by the Builder (cut to MaxLine;
// made valid UTF-8 only when rendered).
type line struct {
	n    int // 0-based line number
	b    []byte
	full int // length before cutting
}

func (l line) size() int { return len(l.b) + 8 }

// Builder accumulates lines. It is not safe for concurrent use.
type Builder struct {
	budget    int
	important func([]byte) bool

	all      []line // every line, while they fit in the budget
	allBytes int
	overflow bool // all was abandoned: sampling mode

	head      []line
	headBytes int
	tail      []line // ring of the most recent lines, from tailStart
	tailStart int
	free      [][]byte // buffers of evicted tail lines, for reuse
	tailBytes int
	imp       []line
	impBytes  int
	nImp      int
	total     int
	partial   []byte // an unterminated line across Write calls (bounded)
}

// New returns a builder for a response of about budget bytes; important
// reports the lines to show first (nil: none).
func New(budget int, important func([]byte) bool) *Builder {
	if budget < 256 {
		budget = 256
	}
	return &Builder{budget: budget, important: important}
}

func (b *Builder) shares() (imp, head, tail int) {
	return b.budget / 2, b.budget / 5, b.budget - b.budget/2 - b.budget/5
}

// Add records the next line (without its newline). It does not keep raw.
func (b *Builder) Add(raw []byte) {
	n := b.total
	b.total++
	isImp := b.important != nil && b.important(raw)
	if isImp {
		b.nImp++
	}
	if !b.overflow {
		l := line{n: n, b: append([]byte(nil), raw[:min(len(raw), MaxLine)]...), full: len(raw)}
		b.all = append(b.all, l)
		b.allBytes += len(l.b) + 1
		if b.allBytes <= b.budget {
			return
		}
		b.overflow = true
		lines := b.all
		b.all = nil
		for _, x := range lines {
			b.sample(x.n, x.b, x.full, b.important != nil && b.important(x.b))
		}
		return
	}
	b.sample(n, raw, len(raw), isImp)
}

// sample files a line under head, important and tail. Head and important
// lines are few (bounded by their share of the budget) and copied; the tail
// is a ring whose buffers are reused, so streaming costs no allocation.
func (b *Builder) sample(n int, raw []byte, full int, isImp bool) {
	impShare, headShare, tailShare := b.shares()
	raw = raw[:min(len(raw), MaxLine)]
	size := len(raw) + 8
	if b.headBytes+size <= headShare && b.tailBytes == 0 {
		b.head = append(b.head, line{n, append([]byte(nil), raw...), full})
		b.headBytes += size
		return
	}
	if isImp && b.impBytes+size <= impShare {
		b.imp = append(b.imp, line{n, append([]byte(nil), raw...), full})
		b.impBytes += size
	}
	// Evict from the front of the ring until the new line fits, keeping the
	// evicted buffers for reuse.
	for len(b.tail) > b.tailStart && b.tailBytes+size > tailShare {
		old := b.tail[b.tailStart]
		b.tailBytes -= old.size()
		b.free = append(b.free, old.b[:0])
		b.tailStart++
	}
	if b.tailStart > 64 && b.tailStart > len(b.tail)/2 { // compact the ring
		k := copy(b.tail, b.tail[b.tailStart:])
		b.tail = b.tail[:k]
		b.tailStart = 0
	}
	var buf []byte
	if k := len(b.free); k > 0 {
		buf, b.free = b.free[k-1], b.free[:k-1]
	}
	b.tail = append(b.tail, line{n, append(buf, raw...), full})
	b.tailBytes += size
}

// Write splits p into lines and adds them, so a Builder can be an output sink.
func (b *Builder) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(b.partial) < MaxLine*4 {
				b.partial = append(b.partial, p[:min(len(p), MaxLine*4-len(b.partial))]...)
			}
			break
		}
		if len(b.partial) > 0 {
			b.partial = append(b.partial, p[:min(i, MaxLine*4)]...)
			b.Add(b.partial)
			b.partial = b.partial[:0]
		} else {
			b.Add(p[:i])
		}
		p = p[i+1:]
	}
	return n, nil
}

// Flush adds an unterminated last line written through Write.
func (b *Builder) Flush() {
	if len(b.partial) > 0 {
		b.Add(b.partial)
		b.partial = b.partial[:0]
	}
}

// Excerpt renders what was kept.
func (b *Builder) Excerpt() Excerpt {
	e := Excerpt{TotalLines: b.total, Important: b.nImp}
	if !b.overflow {
		var s strings.Builder
		for _, l := range b.all {
			s.WriteString(l.text())
			s.WriteByte('\n')
		}
		e.Text = s.String()
		return e
	}
	e.Truncated = true
	tail := b.tail[b.tailStart:]
	firstTail := b.total
	if len(tail) > 0 {
		firstTail = tail[0].n
	}
	var s strings.Builder
	shown := 0
	for _, l := range b.imp {
		if l.n >= len(b.head) && l.n < firstTail {
			shown++
		}
	}
	if shown > 0 {
		fmt.Fprintf(&s, "── %d of %d error/crash lines ──\n", shown, b.nImp)
		for _, l := range b.imp {
			if l.n >= len(b.head) && l.n < firstTail {
				fmt.Fprintf(&s, "%d: %s\n", l.n+1, l.text())
			}
		}
		s.WriteString("── output ──\n")
	}
	for _, l := range b.head {
		s.WriteString(l.text())
		s.WriteByte('\n')
	}
	if gap := firstTail - len(b.head); gap > 0 {
		fmt.Fprintf(&s, "… %d lines omitted (lines %d–%d) …\n", gap, len(b.head)+1, firstTail)
	}
	for _, l := range tail {
		s.WriteString(l.text())
		s.WriteByte('\n')
	}
	e.Text = s.String()
	return e
}

// text renders a kept line: valid UTF-8, cut on a rune boundary with a marker
// when it was longer than MaxLine.
func (l line) text() string {
	if l.full <= len(l.b) {
		return strings.ToValidUTF8(string(l.b), "\uFFFD")
	}
	k := len(l.b)
	// Drop a rune that the cut at MaxLine split.
	for i := k - 1; i >= 0 && i >= k-utf8.UTFMax; i-- {
		if utf8.RuneStart(l.b[i]) {
			if !utf8.FullRune(l.b[i:k]) {
				k = i
			}
			break
		}
	}
	return strings.ToValidUTF8(string(l.b[:k]), "\uFFFD") + fmt.Sprintf("…[+%d bytes]", l.full-k)
}
