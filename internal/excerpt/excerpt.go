// Package excerpt makes the bounded view of a long output that every triage
// response carries: the lines that explain a failure first (errors, crash
// indicators), then the head and the tail, within a byte budget, with markers
// saying what was left out.
//
// The budget is a hard limit on len(Excerpt.Text): kept lines are measured as
// they will be rendered (invalid UTF-8 replaced, cut markers, line-number
// prefixes), and the final render drops tail lines if the markers would push
// it over. It streams: memory is bounded by the budget whatever the output's
// size, and adding a line allocates nothing once the tail ring is warm.
package excerpt

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxLine bounds one kept line; longer lines are cut with a marker. Small
// budgets cut lines shorter still.
const MaxLine = 400

// MinBudget is the smallest budget New accepts; smaller ones are raised to it.
const MinBudget = 256

// maxMarkerReserve is the part of the budget set aside for the section
// headers and the omitted-lines marker (a quarter of small budgets); Excerpt
// drops lines if they need more.
const maxMarkerReserve = 160

// Excerpt is the rendered view.
type Excerpt struct {
	Text       string `json:"text"`
	TotalLines int    `json:"total_lines"`
	Truncated  bool   `json:"truncated"` // Text is not the whole output: lines omitted or cut
	Important  int    `json:"important"` // important lines seen, shown or not
}

// line is a kept line. Its bytes are owned by the Builder.
type line struct {
	n    int    // 0-based line number
	b    []byte // the line, cut to the Builder's line cap
	full int    // length before cutting
	size int    // rendered size, newline included (and, for important lines, the "N: " prefix)
}

// Builder accumulates lines. It is not safe for concurrent use.
type Builder struct {
	budget    int
	lineCap   int
	important func([]byte) bool

	all      []line // every line, while the whole output fits
	allBytes int
	overflow bool // all was abandoned: head, important and tail from now on
	cut      bool // a line was cut

	head      []line
	headBytes int
	imp       []line
	impBytes  int
	nImp      int
	tail      []line // ring of the most recent lines, from tailStart
	tailStart int
	tailBytes int
	free      [][]byte // buffers of evicted tail lines, for reuse

	total      int
	partial    []byte // Write: the start of an unterminated line (at most partialMax bytes)
	partialLen int    // Write: the unterminated line's full length
	scratch    []byte // rendering scratch for measuring lines
}

// New returns a builder for a response of at most budget bytes (MinBudget
// if less); important reports the lines to show first (nil: none).
func New(budget int, important func([]byte) bool) *Builder {
	budget = max(budget, MinBudget)
	_, headShare := shares(budget)
	// The worst rendering of a cut line is twice its bytes (an invalid byte
	// between ASCII ones becomes a 3-byte U+FFFD) plus the cut marker: the
	// cap keeps any line within the smallest share (but for tiny budgets).
	lineCap := max(16, min(MaxLine, (headShare-len("…[+99999999999 bytes]\n"))/2))
	return &Builder{budget: budget, lineCap: lineCap, important: important}
}

// content is the budget less the reserve for headers and markers.
func content(budget int) int { return budget - min(maxMarkerReserve, budget/4) }

// shares splits the content budget: up to half for the important lines, a
// fifth for the head. The tail has the rest, with what the important lines
// leave unused.
func shares(budget int) (imp, head int) {
	c := content(budget)
	return c / 2, c / 5
}

// Add records the next line (without its newline). It does not keep raw.
func (b *Builder) Add(raw []byte) { b.add(raw, len(raw)) }

// add records a line of which raw is the start and full the length.
func (b *Builder) add(raw []byte, full int) {
	n := b.total
	b.total++
	isImp := b.important != nil && b.important(raw)
	if isImp {
		b.nImp++
	}
	if b.overflow {
		b.sample(n, raw, full, isImp)
		return
	}
	raw = raw[:min(len(raw), b.lineCap)]
	b.cut = b.cut || full > len(raw)
	l := b.keep(n, nil, raw, full, b.measure(raw, full))
	b.all = append(b.all, l)
	b.allBytes += l.size
	if b.allBytes <= b.budget {
		return
	}
	b.overflow = true
	lines := b.all
	b.all = nil
	for _, x := range lines {
		b.sample(x.n, x.b, x.full, b.important != nil && b.important(x.b))
	}
}

// measure is the rendered size of a line of which raw is the start (cut to
// the line cap) and full the length, newline included.
func (b *Builder) measure(raw []byte, full int) int {
	if full == len(raw) && utf8.Valid(raw) {
		return len(raw) + 1
	}
	b.scratch = line{b: raw, full: full}.appendText(b.scratch[:0])
	return len(b.scratch)
}

// keep copies raw, cut to the line cap, into buf.
func (b *Builder) keep(n int, buf, raw []byte, full, size int) line {
	return line{n: n, b: append(buf, raw...), full: full, size: size}
}

// numberWidth is the size of the "N: " prefix of line n.
func numberWidth(n int) int {
	w := 3
	for n++; n >= 10; n /= 10 {
		w++
	}
	return w
}

// sample files a line under head, important and tail. Head and important
// lines are few (bounded by their share of the budget) and copied; the tail
// is a ring whose buffers are reused, so streaming costs no allocation.
func (b *Builder) sample(n int, raw []byte, full int, isImp bool) {
	impShare, headShare := shares(b.budget)
	raw = raw[:min(len(raw), b.lineCap)]
	size := b.measure(raw, full)
	if b.tailBytes == 0 && b.headBytes+size <= headShare {
		b.head = append(b.head, b.keep(n, nil, raw, full, size))
		b.headBytes += size
		return
	}
	if isImp {
		if numbered := size + numberWidth(n); b.impBytes+numbered <= impShare {
			b.imp = append(b.imp, b.keep(n, nil, raw, full, numbered))
			b.impBytes += numbered
		}
	}
	// The tail takes whatever the head and the important lines leave:
	// evict from the front of the ring until the new line fits, keeping the
	// evicted buffers for reuse.
	tailShare := content(b.budget) - b.headBytes - b.impBytes
	for len(b.tail) > b.tailStart && b.tailBytes+size > tailShare {
		old := b.tail[b.tailStart]
		b.tailBytes -= old.size
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
	b.tail = append(b.tail, b.keep(n, buf, raw, full, size))
	b.tailBytes += size
}

// partialMax bounds what Write keeps of a line split across calls: the
// important classifier sees that much of it.
const partialMax = 4 * MaxLine

// Write splits p into lines and adds them, so a Builder can be an output
// sink.
func (b *Builder) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			b.partial = append(b.partial, p[:min(len(p), partialMax-len(b.partial))]...)
			b.partialLen += len(p)
			break
		}
		if b.partialLen > 0 {
			b.partial = append(b.partial, p[:min(i, partialMax-len(b.partial))]...)
			b.add(b.partial, b.partialLen+i)
			b.partial, b.partialLen = b.partial[:0], 0
		} else {
			b.add(p[:i], i)
		}
		p = p[i+1:]
	}
	return n, nil
}

// Flush adds an unterminated last line written through Write.
func (b *Builder) Flush() {
	if b.partialLen > 0 {
		b.add(b.partial, b.partialLen)
		b.partial, b.partialLen = b.partial[:0], 0
	}
}

// Excerpt renders what was kept, in at most the budget's bytes.
func (b *Builder) Excerpt() Excerpt {
	e := Excerpt{TotalLines: b.total, Important: b.nImp, Truncated: b.cut}
	var out []byte
	if !b.overflow {
		for _, l := range b.all {
			out = l.appendText(out)
		}
		e.Text = string(out)
		return e
	}
	e.Truncated = true
	head, imp, tail := b.head, b.imp, b.tail[b.tailStart:]
	// Drop the oldest tail lines, then the last important and head lines,
	// until the markers fit too (the reserve almost always suffices).
	for render(nil, b.total, b.nImp, head, imp, tail, true) > b.budget {
		switch {
		case len(tail) > 0:
			tail = tail[1:]
		case len(imp) > 0:
			imp = imp[:len(imp)-1]
		default:
			head = head[:len(head)-1]
		}
	}
	out = make([]byte, 0, b.budget)
	render(&out, b.total, b.nImp, head, imp, tail, false)
	e.Text = string(out)
	return e
}

// render appends the truncated view to *out (measureOnly: just sizes it) and
// returns its size.
func render(out *[]byte, total, nImp int, head, imp, tail []line, measureOnly bool) int {
	firstTail := total
	if len(tail) > 0 {
		firstTail = tail[0].n
	}
	// Important lines inside the head or the tail are shown there.
	var shown []line
	size := 0
	for _, l := range imp {
		if l.n >= len(head) && l.n < firstTail {
			shown = append(shown, l)
			size += l.size
		}
	}
	var impHeader, gap string
	if len(shown) > 0 {
		impHeader = fmt.Sprintf("── %d of %d error/crash lines ──\n", len(shown), nImp)
		size += len(impHeader) + len(outputHeader)
	}
	if n := firstTail - len(head); n > 0 {
		gap = fmt.Sprintf("… %d lines omitted (lines %d–%d) …\n", n, len(head)+1, firstTail)
		if n == 1 {
			gap = fmt.Sprintf("… 1 line omitted (line %d) …\n", firstTail)
		}
		size += len(gap)
	}
	for _, l := range head {
		size += l.size
	}
	for _, l := range tail {
		size += l.size
	}
	if measureOnly {
		return size
	}
	o := *out
	if len(shown) > 0 {
		o = append(o, impHeader...)
		for _, l := range shown {
			o = strconv.AppendInt(o, int64(l.n+1), 10)
			o = append(o, ": "...)
			o = l.appendText(o)
		}
		o = append(o, outputHeader...)
	}
	for _, l := range head {
		o = l.appendText(o)
	}
	o = append(o, gap...)
	for _, l := range tail {
		o = l.appendText(o)
	}
	*out = o
	return len(o)
}

const outputHeader = "── output ──\n"

// appendText appends the line's rendering and a newline: valid UTF-8 (a run
// of invalid bytes becomes one U+FFFD), cut on a rune boundary with a marker
// when the line was longer than what was kept.
func (l line) appendText(dst []byte) []byte {
	s := l.b
	cut := l.full > len(s)
	if cut {
		// Drop a rune that the cut split.
		for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
			if utf8.RuneStart(s[i]) {
				if !utf8.FullRune(s[i:]) {
					s = s[:i]
				}
				break
			}
		}
	}
	kept := len(s)
	if utf8.Valid(s) {
		dst = append(dst, s...)
	} else {
		invalid := false
		for len(s) > 0 {
			r, n := utf8.DecodeRune(s)
			if r == utf8.RuneError && n == 1 {
				if !invalid {
					dst = append(dst, "\uFFFD"...)
				}
				invalid = true
			} else {
				dst = append(dst, s[:n]...)
				invalid = false
			}
			s = s[n:]
		}
	}
	if cut {
		dst = append(dst, "…[+"...)
		dst = strconv.AppendInt(dst, int64(l.full-kept), 10)
		dst = append(dst, " bytes]"...)
	}
	return append(dst, '\n')
}
