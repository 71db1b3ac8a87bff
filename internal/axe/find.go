package axe

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/textclip"
)

// maxNearest is how many near names a not-found error lists.
const maxNearest = 5

// Find returns the one element whose label (by "label") or id (by "id")
// is value, exactly. None is a not-found fault naming the nearest labels
// or ids on the screen; several is a usage fault (AXe would refuse to
// choose too).
func Find(roots []Element, by, value string) (Element, error) {
	var matches []Element
	walk(roots, func(e Element) {
		if field(e, by) == value {
			matches = append(matches, e)
		}
	})
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return Element{}, notFound(roots, by, value)
	}
	if by == "label" {
		return Element{}, fault.Usagef("%d elements labelled %q: give its id, or x and y", len(matches), value)
	}
	return Element{}, fault.Usagef("%d elements with id %q: give x and y", len(matches), value)
}

func field(e Element, by string) string {
	if by == "id" {
		return e.ID
	}
	return e.Label
}

func walk(roots []Element, f func(Element)) {
	for _, e := range roots {
		f(e)
		walk(e.Children, f)
	}
}

func notFound(roots []Element, by, value string) error {
	var names []string
	walk(roots, func(e Element) {
		if n := field(e, by); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	})
	what := "no element labelled"
	if by == "id" {
		what = "no element with id"
	}
	q := textclip.String(value, 120)
	if len(names) == 0 {
		return fault.NotFoundf("%s %q: no element on the screen has one (ui_describe shows what is there)", what, q)
	}
	if near := Nearest(value, names, maxNearest); len(near) > 0 {
		return fault.NotFoundf("%s %q: nearest: %s", what, q, join(near))
	}
	return fault.NotFoundf("%s %q: none is near; on screen: %s", what, q, join(names[:min(len(names), maxNearest)]))
}

func join(names []string) string {
	clipped := make([]string, len(names))
	for i, n := range names {
		clipped[i] = textclip.String(n, 60)
	}
	return strings.Join(clipped, ", ")
}

// Nearest returns up to n of names nearest to q: those containing q or
// contained in it (ignoring case) first, then by edit distance, keeping
// only those within a third of their length's reach (at least 3 edits).
func Nearest(q string, names []string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	lq := strings.ToLower(q)
	var near []scored
	for _, name := range names {
		ln := strings.ToLower(name)
		d := distance(lq, ln)
		if strings.Contains(ln, lq) || strings.Contains(lq, ln) {
			d = 0
		}
		if d <= max(3, 2*max(utf8.RuneCountInString(lq), utf8.RuneCountInString(ln))/3) {
			near = append(near, scored{name, d})
		}
	}
	slices.SortStableFunc(near, func(a, b scored) int { return a.d - b.d })
	out := make([]string, 0, min(n, len(near)))
	for _, s := range near[:min(n, len(near))] {
		out = append(out, s.name)
	}
	return out
}

// maxCompared bounds the runes of each side distance compares.
const maxCompared = 64

// distance is the Levenshtein distance of a and b (each cut to
// maxCompared runes).
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	ra, rb = ra[:min(len(ra), maxCompared)], rb[:min(len(rb), maxCompared)]
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// String is e on one line: `Button "Submit" id=submit value=… (16,62 44x44)`.
func (e Element) String() string {
	var b strings.Builder
	b.WriteString(e.Type)
	if e.Label != "" {
		fmt.Fprintf(&b, " %q", e.Label)
	}
	if e.ID != "" {
		fmt.Fprintf(&b, " id=%s", e.ID)
	}
	if e.Value != "" {
		fmt.Fprintf(&b, " value=%q", e.Value)
	}
	fmt.Fprintf(&b, " (%s,%s %sx%s)", num(e.Frame.X), num(e.Frame.Y), num(e.Frame.Width), num(e.Frame.Height))
	if !e.Enabled {
		b.WriteString(" disabled")
	}
	return b.String()
}
