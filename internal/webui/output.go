package webui

import (
	"net/http"
	"regexp"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/textclip"
)

// Bounds of what the output viewer gets at once, whatever it asks.
const (
	maxViewLines    = 1000      // lines of one page
	maxLineBytes    = 8 << 10   // a longer line is cut (the raw download has it whole)
	maxMarksPerLine = 64        // highlighted matches of one line
	maxSearchHits   = 1000      // matches listed (all are counted), as output_search
	maxSearchBytes  = 512 << 10 // text of the matches listed
)

// viewPage is a page of an output's lines; Marks, when a pattern was
// given, are each line's matches as [start, end) in UTF-16 code units, the
// units of the page's strings.
type viewPage struct {
	Offset     int        `json:"offset"`
	Lines      []string   `json:"lines"`
	Marks      [][][2]int `json:"marks,omitempty"`
	TotalLines int        `json:"total_lines"`
	More       bool       `json:"more"`
	Clipped    bool       `json:"clipped,omitempty"` // a line was cut
}

// compile compiles the q parameter as RE2, bounded as output_search is.
func compile(q string) (*regexp.Regexp, error) {
	if len(q) > store.MaxPatternBytes {
		return nil, fault.Usagef("pattern is %d bytes: at most %d", len(q), store.MaxPatternBytes)
	}
	re, err := regexp.Compile(q)
	if err != nil {
		return nil, fault.Usagef("pattern does not compile (RE2 syntax): %v", err)
	}
	return re, nil
}

// lines answers a page of an output's lines (the store's Page reads only
// the chunks that hold them), with the matches of q marked.
func (u *UI) lines(w http.ResponseWriter, r *http.Request) {
	st, offset, limit, err := u.page(r, 200)
	if err != nil {
		fail(w, err)
		return
	}
	var re *regexp.Regexp
	if q := r.URL.Query().Get("q"); q != "" {
		if re, err = compile(q); err != nil {
			fail(w, err)
			return
		}
	}
	p, err := st.Page(r.Context(), r.PathValue("id"), offset, min(max(limit, 1), maxViewLines))
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, view(p, re))
}

// view cuts a store page's long lines and marks re's matches.
func view(p store.Page, re *regexp.Regexp) viewPage {
	v := viewPage{Offset: p.Offset, Lines: make([]string, len(p.Lines)), TotalLines: p.TotalLines, More: p.More}
	if re != nil {
		v.Marks = make([][][2]int, len(p.Lines))
	}
	for i, l := range p.Lines {
		if len(l) > maxLineBytes {
			l = textclip.Prefix(l, maxLineBytes)
			v.Clipped = true
		}
		v.Lines[i] = l
		if re != nil {
			v.Marks[i] = marks(l, re.FindAllStringIndex(l, maxMarksPerLine))
		}
	}
	return v
}

// marks converts byte ranges of s into UTF-16 ranges, as JavaScript
// indexes strings. Empty matches mark nothing.
func marks(s string, spans [][]int) [][2]int {
	out := [][2]int{}
	at, units := 0, 0 // a byte offset in s and its UTF-16 offset
	advance := func(to int) int {
		for at < to {
			r, n := utf8.DecodeRuneInString(s[at:])
			units += utf16.RuneLen(r) // an invalid byte arrives as one U+FFFD
			at += n
		}
		return units
	}
	for _, sp := range spans {
		if sp[1] == sp[0] {
			continue
		}
		start := advance(sp[0])
		out = append(out, [2]int{start, advance(sp[1])})
	}
	return out
}

// search answers the lines of an output that match q (RE2), as many as
// output_search would list, all of them counted.
func (u *UI) search(w http.ResponseWriter, r *http.Request) {
	st, err := u.svc.Store(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	q := r.URL.Query().Get("q")
	if _, err := compile(q); err != nil && q != "" {
		fail(w, err)
		return
	}
	res, err := st.Search(r.Context(), store.Query{ID: r.PathValue("id"), Pattern: q, MaxMatches: maxSearchHits, MaxBytes: maxSearchBytes})
	if err != nil {
		fail(w, err)
		return
	}
	type hit struct {
		Line int    `json:"line"`
		Text string `json:"text"`
	}
	out := struct {
		Hits      []hit `json:"hits"`
		Total     int   `json:"total"`
		Truncated bool  `json:"truncated"`
	}{Hits: []hit{}, Total: res.Total, Truncated: res.Truncated}
	for _, m := range res.Matches {
		out.Hits = append(out.Hits, hit{Line: m.Line, Text: m.Text})
	}
	writeJSON(w, out)
}
