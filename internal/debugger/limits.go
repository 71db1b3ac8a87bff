package debugger

import "fmt"

// Limits keep values and lists small enough for a model to read.
type Limits struct {
	MaxString   int // bytes of one value
	MaxChildren int // children of one variable (array elements, fields)
	Depth       int // levels of children fetched by default
	MaxFrames   int // frames returned by Stack when the caller gives none
}

// DefaultLimits are used for every zero field.
func DefaultLimits() Limits {
	return Limits{MaxString: 512, MaxChildren: 64, Depth: 1, MaxFrames: 50}
}

// WithDefaults fills zero fields from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.MaxString <= 0 {
		l.MaxString = d.MaxString
	}
	if l.MaxChildren <= 0 {
		l.MaxChildren = d.MaxChildren
	}
	if l.Depth <= 0 {
		l.Depth = d.Depth
	}
	if l.MaxFrames <= 0 {
		l.MaxFrames = d.MaxFrames
	}
	return l
}

// CapValue cuts s to MaxString bytes (on a rune boundary) and says what was cut.
func (l Limits) CapValue(s string) (string, string) {
	if len(s) <= l.MaxString {
		return s, ""
	}
	cut := l.MaxString
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…", fmt.Sprintf("value cut at %d of %d bytes", cut, len(s))
}

// CapChildren keeps the first MaxChildren of n children and says what was cut.
func (l Limits) CapChildren(n int) (keep int, note string) {
	if n <= l.MaxChildren {
		return n, ""
	}
	return l.MaxChildren, fmt.Sprintf("%d of %d children shown", l.MaxChildren, n)
}

// JoinCut appends note to an existing cut note.
func JoinCut(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
