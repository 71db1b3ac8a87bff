package coredump

import (
	"fmt"
	"io"
	"strings"
)

// FramesShown bounds the frames a text answer shows; the structured
// output has every frame.
const FramesShown = 8

// WriteFrames writes frames one a line, at most FramesShown of them.
func WriteFrames(w io.Writer, frames []Frame) {
	for i, f := range frames {
		if i == FramesShown {
			fmt.Fprintf(w, "  … %d more frames\n", len(frames)-i)
			break
		}
		fmt.Fprintf(w, "  %s\n", f.String())
	}
}

// WriteText writes the trace's frames under a heading naming its debugger.
func (t *Trace) WriteText(w io.Writer) {
	if t == nil || len(t.Frames) == 0 {
		return
	}
	fmt.Fprintf(w, "backtrace (%s):\n", t.Debugger)
	WriteFrames(w, t.Frames)
}

// WriteArtifacts lists artifacts under a count, one a line: when, what,
// where, and the first line of its note.
func WriteArtifacts(w io.Writer, arts []Artifact) {
	fmt.Fprintf(w, "CRASH ARTIFACTS: %d\n", len(arts))
	for _, a := range arts {
		fmt.Fprintf(w, "%s  %-11s %s", a.ModTime.Format("2006-01-02 15:04:05"), a.Kind, a.Path)
		if note, _, _ := strings.Cut(a.Note, "\n"); note != "" {
			fmt.Fprintf(w, " — %s", note)
		}
		io.WriteString(w, "\n")
	}
}
