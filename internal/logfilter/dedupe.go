package logfilter

import (
	"bytes"
	"hash/maphash"
)

// folds remembers diagnostics already written so that repeats are folded.
// It holds at most maxDedupe entries; past that, new diagnostics are written
// every time (memory stays bounded, nothing is lost).
type folds struct {
	seed    maphash.Seed
	index   map[uint64]int32 // line hash -> entries index
	entries []foldEntry
}

type foldEntry struct {
	text  string // the line, cut at maxFoldedText bytes
	count int
	diag  int // index in Summary.Diagnostics, or -1
}

// see returns the entry for line and whether it was there already. The
// entry is nil when the table is full and line is new.
func (t *folds) see(line []byte) (*foldEntry, bool) {
	if t.index == nil {
		t.seed = maphash.MakeSeed()
		t.index = make(map[uint64]int32)
	}
	h := maphash.Bytes(t.seed, line)
	if i, ok := t.index[h]; ok {
		return &t.entries[i], true
	}
	if len(t.entries) >= maxDedupe {
		return nil, false
	}
	text := line
	if len(text) > maxFoldedText {
		text = text[:maxFoldedText]
	}
	t.index[h] = int32(len(t.entries))
	t.entries = append(t.entries, foldEntry{text: string(text), count: 1, diag: -1})
	return &t.entries[len(t.entries)-1], false
}

// repeated returns the entries seen more than once, in order of first sight.
func (t *folds) repeated() []foldEntry {
	var r []foldEntry
	for _, e := range t.entries {
		if e.count > 1 {
			r = append(r, e)
		}
	}
	return r
}

// foldable: warnings always; errors only when they carry a location, since
// rustc prints the location on the next line and two "cannot find value `x`"
// errors may be in different places.
func (f *Filter) foldable(line []byte, c class) bool {
	if c == clsAlarm {
		return true // meson repeats its failed tests' lines under "Summary of Failures"
	}
	switch c.kind {
	case KindWarning:
		return true
	case KindError:
		return hasLocation(line)
	}
	return false
}

// fold counts a foldable diagnostic and reports whether it was seen before.
func (f *Filter) fold(line []byte, c class) bool {
	e, seen := f.folds.see(line)
	if seen {
		f.sum.Folded++
		e.count++
		if e.diag >= 0 {
			f.sum.Diagnostics[e.diag].Count++
		}
		return true
	}
	before := len(f.sum.Diagnostics)
	f.count(line, c)
	if e != nil && len(f.sum.Diagnostics) > before {
		e.diag = before
	}
	return false
}

func hasLocation(line []byte) bool {
	i := bytes.IndexByte(line, ':')
	return i > 0 && i+1 < len(line) && isDigit(line[i+1])
}
