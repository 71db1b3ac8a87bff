package axe

import (
	"encoding/json"
	"fmt"

	"github.com/triage-dev/triage/internal/textclip"
)

// Frame is an element's rectangle in screen points.
type Frame struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Center is the frame's middle point.
func (f Frame) Center() Point { return Point{X: f.X + f.Width/2, Y: f.Y + f.Height/2} }

// Element is one accessibility element, compacted to what an agent needs.
type Element struct {
	Type     string    `json:"type,omitempty"`
	Role     string    `json:"role,omitempty"`
	Label    string    `json:"label,omitempty"`
	ID       string    `json:"id,omitempty"`
	Value    string    `json:"value,omitempty"`
	Frame    Frame     `json:"frame"`
	Enabled  bool      `json:"enabled"`
	Children []Element `json:"children,omitempty"`
}

// raw is one element of describe-ui's JSON (the keys AXe prints; the
// others are not read).
type raw struct {
	Label    *string `json:"AXLabel"`
	ID       *string `json:"AXUniqueId"`
	Value    *string `json:"AXValue"`
	Children []raw   `json:"children"`
	Enabled  bool    `json:"enabled"`
	Frame    Frame   `json:"frame"`
	Role     string  `json:"role"`
	Type     string  `json:"type"`
}

// maxNesting refuses a tree deeper than any screen (and than the stack
// should recurse for).
const maxNesting = 200

// Parse reads describe-ui's JSON (an array of root elements) into the
// compact tree: containers that carry no label, id or value give their
// place to their children, so the dozen anonymous groups SwiftUI nests
// around a button do not each cost a level. Nothing else is left out;
// Bound cuts the tree for an answer.
func Parse(data []byte) ([]Element, error) {
	var roots []raw
	if err := json.Unmarshal(data, &roots); err != nil {
		return nil, fmt.Errorf("reading axe describe-ui's JSON: %w", err)
	}
	var out []Element
	for _, r := range roots {
		var err error
		if out, err = compact(r, 0, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func compact(r raw, depth int, out []Element) ([]Element, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("reading axe describe-ui's JSON: elements nested over %d deep", maxNesting)
	}
	var kids []Element
	for _, c := range r.Children {
		var err error
		if kids, err = compact(c, depth+1, kids); err != nil {
			return nil, err
		}
	}
	e := Element{Type: r.Type, Role: r.Role, Label: str(r.Label), ID: str(r.ID), Value: str(r.Value), Frame: r.Frame, Enabled: r.Enabled, Children: kids}
	if e.Label == "" && e.ID == "" && e.Value == "" && len(kids) > 0 {
		return append(out, kids...), nil
	}
	return append(out, e), nil
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Limits bound a tree in an answer.
type Limits struct {
	Elements int // elements kept, in document order
	Depth    int // levels kept below the roots
	String   int // bytes of a label, id or value
}

// DefaultLimits keep a screen readable in a few KiB.
var DefaultLimits = Limits{Elements: 200, Depth: 12, String: 120}

// Count is the number of elements in roots and their descendants.
func Count(roots []Element) int {
	n := 0
	for _, e := range roots {
		n += 1 + Count(e.Children)
	}
	return n
}

// Bound returns roots cut to lim and how many elements were left out.
func Bound(roots []Element, lim Limits) ([]Element, int) {
	budget := lim.Elements
	kept := bound(roots, lim, 0, &budget)
	return kept, Count(roots) - Count(kept)
}

func bound(in []Element, lim Limits, depth int, budget *int) []Element {
	var out []Element
	for _, e := range in {
		if *budget <= 0 {
			break
		}
		*budget--
		e.Label = textclip.String(e.Label, lim.String)
		e.ID = textclip.String(e.ID, lim.String)
		e.Value = textclip.String(e.Value, lim.String)
		if depth >= lim.Depth {
			e.Children = nil
		} else {
			e.Children = bound(e.Children, lim, depth+1, budget)
		}
		out = append(out, e)
	}
	return out
}
