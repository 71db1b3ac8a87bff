package verdict

import (
	"fmt"
	"io"
	"strings"
)

// indicatorsShown bounds the indicators a text lists; the structured
// output has every one.
const indicatorsShown = 5

// WriteIndicators lists the verdict's indicators, at most five.
func (v Verdict) WriteIndicators(w io.Writer) {
	if len(v.Indicators) == 0 {
		return
	}
	io.WriteString(w, "indicators:\n")
	for i, ind := range v.Indicators {
		if i == indicatorsShown {
			fmt.Fprintf(w, "  … %d more in the structured output\n", len(v.Indicators)-i)
			break
		}
		fmt.Fprintf(w, "  %s (line %d): %s\n", ind.Name, ind.LineNo, ind.Line)
	}
}

// WriteEvidence lists the verdict's evidence, one line each.
func (v Verdict) WriteEvidence(w io.Writer) {
	if len(v.Evidence) == 0 {
		return
	}
	io.WriteString(w, "evidence:\n")
	for _, e := range v.Evidence {
		e.WriteText(w)
	}
}

// WriteText writes the evidence as one line: its kind, its path and the
// first line of its summary.
func (e Evidence) WriteText(w io.Writer) {
	kind := strings.ReplaceAll(e.Kind, "_", " ")
	switch {
	case e.Path != "" && e.Summary != "":
		fmt.Fprintf(w, "  %s: %s — %s\n", kind, e.Path, FirstLine(e.Summary))
	case e.Path != "":
		fmt.Fprintf(w, "  %s: %s\n", kind, e.Path)
	default:
		fmt.Fprintf(w, "  %s: %s\n", kind, FirstLine(e.Summary))
	}
}

// FirstLine is s up to its first newline.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
