package memcheck

import (
	"fmt"
	"path"
	"strings"

	"github.com/triage-dev/triage/internal/textclip"
)

// Bounds of the text.
const (
	maxSummary     = 600  // bytes of a one-line summary
	maxDetail      = 6000 // bytes of a multi-line detail
	detailFrames   = 8    // frames of a stack shown in a detail
	detailOthers   = 5    // further errors named in a result's detail
	memcheckPrefix = "memcheck: "
)

// Summary is the one line a verdict shows:
//
//	memcheck: heap buffer overflow: invalid write of size 4 at list.c:12 in grow (heap block of 256 bytes allocated at list.c:9 in make_table, 0 bytes past its end)
func (r *Report) Summary() string {
	var b strings.Builder
	b.WriteString(prefix(r.Tool) + r.Words)
	if f := r.Site(); f != nil {
		if isLeak(r.Kind) {
			b.WriteString(", allocated")
		}
		b.WriteString(" at " + where(*f))
	}
	if s := r.context(); s != "" {
		b.WriteString(" (" + s + ")")
	}
	if r.Count > 1 {
		fmt.Fprintf(&b, ", %d times", r.Count)
	}
	return textclip.String(b.String(), maxSummary)
}

// context says what the auxiliary stacks and words add: the block and
// where it was allocated and freed, or where a value was created (a
// thread checker's: threadContext).
func (r *Report) context() string {
	if !isMemcheck(r.Tool) {
		return threadContext(r)
	}
	alloc, freed := r.AuxOf(Allocated), r.AuxOf(Freed)
	if b := r.Block; b != nil {
		s := fmt.Sprintf("heap block of %s", count(b.Size, "byte"))
		if freed != nil {
			s += " freed at " + stackSite(freed) + ","
		}
		if alloc != nil {
			s += " allocated at " + stackSite(alloc)
		}
		s = strings.TrimSuffix(s, ",")
		if b.Relation == "inside" && b.Offset == 0 {
			return s // the block's own start: a free's usual address
		}
		return s + ", " + offsetWords(b)
	}
	if o := r.AuxOf(Origin); o != nil {
		w := lowerFirst(strings.TrimPrefix(o.What, "Uninitialised value was "))
		if site := stackSite(o); site != "" {
			w += " at " + site
		}
		return w
	}
	if len(r.Notes) > 0 {
		return lowerFirst(r.Notes[0])
	}
	return ""
}

func offsetWords(b *Block) string {
	switch b.Relation {
	case "after":
		return count(b.Offset, "byte") + " past its end"
	case "before":
		return count(b.Offset, "byte") + " before its start"
	}
	return count(b.Offset, "byte") + " into it"
}

// where is "list.c:12 in grow", "grow in libfoo.so", or an address.
func where(f Frame) string {
	fn := f.Function
	if fn == "" {
		fn = f.IP
	}
	switch {
	case f.File != "" && f.Line > 0:
		return f.Site() + " in " + fn
	case f.Object != "":
		return fn + " in " + path.Base(f.Object)
	}
	return fn
}

func stackSite(s *Stack) string {
	if s.At < 0 || s.At >= len(s.Frames) {
		return ""
	}
	return where(s.Frames[s.At])
}

// Detail is the report over several lines, valgrind's words with each
// stack (its first frames; → marks the frame named), bounded.
func (r *Report) Detail() string {
	var b strings.Builder
	b.WriteString(r.Summary() + "\n")
	fmt.Fprintf(&b, "  valgrind: %s (%s)\n", r.What, r.Kind)
	writeFrames(&b, r.Stack, r.At, r.Dropped)
	for _, s := range r.Aux {
		b.WriteString("  " + s.What + "\n")
		writeFrames(&b, s.Frames, s.At, s.Dropped)
	}
	for _, n := range r.Notes {
		b.WriteString("  " + n + "\n")
	}
	return textclip.String(b.String(), maxDetail)
}

func writeFrames(b *strings.Builder, frames []Frame, at, dropped int) {
	for i, f := range frames {
		if i == detailFrames {
			dropped += len(frames) - i
			break
		}
		mark, word := "    ", "by"
		if i == at {
			mark = "  → "
		}
		if i == 0 {
			word = "at"
		}
		fmt.Fprintf(b, "%s%s %s\n", mark, word, frameText(f))
	}
	if dropped > 0 {
		fmt.Fprintf(b, "    … %d more frames\n", dropped)
	}
}

// frameText is "grow (list.c:12)", "calloc (vgpreload_memcheck-amd64-linux.so)".
func frameText(f Frame) string {
	fn := f.Function
	if fn == "" {
		fn = "???"
	}
	if s := f.Site(); s != "" {
		return fn + " (" + s + ")"
	}
	return fn + " (" + f.IP + ")"
}

// Summary is the result's one line: the first error's, the words for "no
// memory error seen", or why there is no verdict.
func (r *Result) Summary() string {
	switch r.Outcome {
	case Found:
		s := r.First().Summary()
		if r.Seen > 1 {
			s += fmt.Sprintf("; %d more %s", r.Seen-1, plural(r.Seen-1, "error", "errors"))
		}
		return textclip.String(s, maxSummary)
	case Clean:
		if !isMemcheck(r.Tool) {
			return prefix(r.Tool) + "no data race or lock order error seen in 1 run under valgrind; " + programEnd(r)
		}
		s := memcheckPrefix + "no memory error seen in 1 run under valgrind"
		if !r.Leaks {
			s += " (leaks not checked)"
		}
		return s + "; " + programEnd(r)
	}
	return textclip.String(prefix(r.Tool)+"no verdict: "+r.Reason, maxSummary)
}

// programEnd says how the program ended, as valgrind saw it.
func programEnd(r *Result) string {
	switch p := r.Process; {
	case r.Signal != nil:
		return "the program died of " + r.Signal.Name + signalSite(r.Signal)
	case p != nil && p.Signaled:
		return "the program died of " + p.SignalName
	case p != nil && p.Exited:
		return fmt.Sprintf("the program exited with status %d", p.ExitCode)
	}
	return "the program's end is not known"
}

func signalSite(s *Signal) string {
	if s.At < 0 || s.At >= len(s.Stack) {
		return ""
	}
	return " at " + where(s.Stack[s.At])
}

// Detail is the first error's detail, the next errors' summaries, and how
// the program ended; or the summary when no error was found.
func (r *Result) Detail() string {
	if r.Outcome != Found {
		return r.Summary()
	}
	var b strings.Builder
	b.WriteString(r.First().Detail())
	for i, e := range r.Errors[1:] {
		if i == detailOthers {
			break
		}
		b.WriteString("  then " + strings.TrimPrefix(e.Summary(), prefix(e.Tool)) + "\n")
	}
	if more := r.Seen - 1 - min(detailOthers, len(r.Errors)-1); more > 0 {
		fmt.Fprintf(&b, "  … and %d more %s\n", more, plural(more, "error", "errors"))
	}
	if r.Signal != nil {
		b.WriteString("  " + programEnd(r) + "\n")
	}
	return textclip.String(b.String(), maxDetail)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
