// Package jsoncut bounds an encoded JSON object by cutting its biggest
// lists and strings in half until it fits, keeping its shape and saying
// what it cut: the one rule for a tool's structured answer and for the
// result the store keeps beside a run's output.
package jsoncut

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/triage-dev/triage/internal/textclip"
)

// Bound shrinks an encoded JSON object to at most max bytes: the biggest array loses the second half of its elements, or the
// biggest string its second half, one at a time, until it fits; "_cut" lists
// what was cut. The text (and the stored output it names) carries the rest.
func Bound(b json.RawMessage, max int) json.RawMessage {
	if len(b) <= max {
		return b
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		return b
	}
	cuts := map[string]*cut{}
	for len(b) > max {
		c := largest(obj, "")
		if c == nil || !c.halve(cuts) {
			break
		}
		nb, err := json.Marshal(withCuts(obj, cuts))
		if err != nil {
			break
		}
		b = nb
	}
	return b
}

// cut is a value that can be halved: an element of a map or of an array.
type cut struct {
	path   string
	inMap  map[string]any
	inList []any
	key    string
	index  int
	size   int // encoded size, to pick the largest

	orig, kept int // elements or bytes, before any cut and now
	bytes      bool
}

func (c *cut) get() any {
	if c.inMap != nil {
		return c.inMap[c.key]
	}
	return c.inList[c.index]
}

func (c *cut) set(v any) {
	if c.inMap != nil {
		c.inMap[c.key] = v
	} else {
		c.inList[c.index] = v
	}
}

// halve cuts the value in half, recording it in cuts by path.
func (c *cut) halve(cuts map[string]*cut) bool {
	rec := cuts[c.path]
	switch x := c.get().(type) {
	case []any:
		if len(x) < 2 {
			return false
		}
		if rec == nil {
			rec = &cut{orig: len(x)}
			cuts[c.path] = rec
		}
		c.set(x[:len(x)/2])
		rec.kept = len(x) / 2
	case string:
		if len(x) <= 64 {
			return false
		}
		if rec == nil {
			rec = &cut{orig: len(x), bytes: true}
			cuts[c.path] = rec
		}
		kept := textclip.Prefix(x, len(x)/2)
		c.set(kept + "…")
		rec.kept = len(kept)
	default:
		return false
	}
	return true
}

// withCuts adds the "_cut" list to obj.
func withCuts(obj map[string]any, cuts map[string]*cut) map[string]any {
	notes := make([]string, 0, len(cuts))
	for path, c := range cuts {
		if c.bytes {
			notes = append(notes, fmt.Sprintf("%s: the first %d of %d bytes", path, c.kept, c.orig))
		} else {
			notes = append(notes, fmt.Sprintf("%s: the first %d of %d elements", path, c.kept, c.orig))
		}
	}
	sort.Strings(notes)
	obj["_cut"] = notes
	return obj
}

// largest finds the biggest value under v that halve can cut: an array of
// two or more elements, or a string over 64 bytes.
func largest(v any, path string) *cut {
	var best *cut
	consider := func(c *cut) {
		if c != nil && (best == nil || c.size > best.size) {
			best = c
		}
	}
	visit := func(e any, c *cut) {
		switch x := e.(type) {
		case []any:
			if len(x) > 1 {
				c.size = encodedSize(x)
				consider(c)
			}
		case string:
			if len(x) > 64 {
				c.size = len(x)
				consider(c)
			}
		}
		consider(largest(e, c.path))
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k != "_cut" {
				visit(e, &cut{path: join(path, k), inMap: x, key: k})
			}
		}
	case []any:
		for i, e := range x {
			visit(e, &cut{path: fmt.Sprintf("%s[%d]", path, i), inList: x, index: i})
		}
	}
	return best
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func encodedSize(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}
