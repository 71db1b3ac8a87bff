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

type line struct {
	n    int // 0-based line number
	text string
}

// Builder accumulates lines. It is not safe for concurrent use.
type Builder struct {
	budget    int
	important func([]byte) bool

	all      []line // every line, while they fit in the budget
	allBytes int
	overflow bool // all was abandoned: sampling mode

	head      []line
	headBytes int
	tail      []line // ring of the most recent lines
	tailStart int
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

// Add records the next line (without its newline).
func (b *Builder) Add(raw []byte) {
	n := b.total
	b.total++
	isImp := b.important != nil && b.important(raw)
	text := cut(raw)
	l := line{n, text}
	if isImp {
		b.nImp++
	}
	if !b.overflow {
		b.all = append(b.all, l)
		b.allBytes += len(text) + 1
		if b.allBytes <= b.budget {
			return
		}
		b.overflow = true
		lines := b.all
		b.all = nil
		for _, x := range lines {
			b.sample(x, b.important != nil && b.important([]byte(x.text)))
		}
		return
	}
	b.sample(l, isImp)
}

func (b *Builder) sample(l line, isImp bool) {
	impShare, headShare, tailShare := b.shares()
	size := len(l.text) + 8
	if b.headBytes+size <= headShare && b.tailBytes == 0 {
		b.head = append(b.head, l)
		b.headBytes += size
		return
	}
	if isImp && b.impBytes+size <= impShare {
		b.imp = append(b.imp, l)
		b.impBytes += size
	}
	b.tail = append(b.tail, l)
	b.tailBytes += size
	for b.tailBytes > tailShare && len(b.tail)-b.tailStart > 1 {
		b.tailBytes -= len(b.tail[b.tailStart].text) + 8
		b.tailStart++
	}
	if b.tailStart > 1024 && b.tailStart > len(b.tail)/2 { // compact the ring
		b.tail = append([]line(nil), b.tail[b.tailStart:]...)
		b.tailStart = 0
	}
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
			s.WriteString(l.text)
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
				fmt.Fprintf(&s, "%d: %s\n", l.n+1, l.text)
			}
		}
		s.WriteString("── output ──\n")
	}
	for _, l := range b.head {
		s.WriteString(l.text)
		s.WriteByte('\n')
	}
	if gap := firstTail - len(b.head); gap > 0 {
		fmt.Fprintf(&s, "… %d lines omitted (lines %d–%d) …\n", gap, len(b.head)+1, firstTail)
	}
	for _, l := range tail {
		s.WriteString(l.text)
		s.WriteByte('\n')
	}
	e.Text = s.String()
	return e
}

// cut shortens a line to MaxLine bytes on a UTF-8 boundary, marking the cut,
// and replaces invalid UTF-8.
func cut(raw []byte) string {
	if len(raw) <= MaxLine {
		return strings.ToValidUTF8(string(raw), "\uFFFD")
	}
	k := MaxLine
	for k > 0 && !utf8.RuneStart(raw[k]) {
		k--
	}
	return strings.ToValidUTF8(string(raw[:k]), "\uFFFD") + fmt.Sprintf("…[+%d bytes]", len(raw)-k)
}
