package debugger

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// MaxThreadsListed bounds a thread list in an answer (debug_stack's, a
// refusal's); StopThreadsShown the other threads a stop's report names,
// one line each.
const (
	MaxThreadsListed = 16
	StopThreadsShown = 4
)

// Entry words thread i: its #N, its name where it differs from the
// process's (the first thread's), and where its own code is and what it
// does there ("#2 one blocked in pthread_mutex_lock at abba.c:39"), or
// its top frame when it has none in the program ("#5 in runtime.gopark
// at proc.go:463").
func (l ThreadList) Entry(i int) string {
	t := l.Threads[i]
	s := l.Label(i)
	f := t.Frame
	if t.Name != "" && i > 0 && t.Name != l.Threads[0].Name && (f == nil || t.Name != f.Function) {
		s += fmt.Sprintf(" %q", t.Name)
	}
	switch {
	case f == nil:
		return s
	case !t.Own:
		return s + " in " + f.Text()
	}
	s += " " + f.Function
	if t.State != "" && !strings.HasPrefix(t.State, "stopped") {
		s += " " + t.State
	}
	if f.File != "" {
		s += fmt.Sprintf(" at %s:%d", filepath.Base(f.File), f.Line)
	}
	return s
}

// WriteList writes the threads, one a line (MaxThreadsListed at most),
// marking the one whose stack is shown and the stop's.
func (l ThreadList) WriteList(sb *strings.Builder, shown int) {
	fmt.Fprintf(sb, "threads (%d):\n", len(l.Threads))
	for i, t := range l.Threads {
		if i == MaxThreadsListed {
			fmt.Fprintf(sb, "  … %d more\n", len(l.Threads)-i)
			break
		}
		fmt.Fprintf(sb, "  %s", l.Entry(i))
		if t.ID == l.Stopped && t.Reason != "" {
			sb.WriteString(" (stopped: " + t.Reason + ")")
		}
		if t.ID == shown {
			sb.WriteString(" [this stack]")
		}
		sb.WriteByte('\n')
	}
}

// Summary is what a stop's report says of a target of several threads:
// which one stopped, how many others there are and where they are, those
// in the program's own code first (StopThreadsShown lines, then how many
// more); "" for one thread.
func (l ThreadList) Summary() string {
	if len(l.Threads) < 2 {
		return ""
	}
	var sb strings.Builder
	others := make([]int, 0, len(l.Threads))
	for i, t := range l.Threads {
		if t.ID == l.Stopped {
			fmt.Fprintf(&sb, "in thread %s", l.Label(i))
			if t.Own && t.Frame != nil {
				fmt.Fprintf(&sb, " (%s)", t.Frame.Function)
			}
			fmt.Fprintf(&sb, " of %d; %s:\n", len(l.Threads), plural(len(l.Threads)-1, "other thread"))
			continue
		}
		others = append(others, i)
	}
	if sb.Len() == 0 {
		fmt.Fprintf(&sb, "%d threads:\n", len(l.Threads))
	}
	// Stable: the program's own threads first, in the debugger's order.
	slices.SortStableFunc(others, func(a, b int) int { return boolRank(l.Threads[a].Own) - boolRank(l.Threads[b].Own) })
	for n, i := range others {
		if n == StopThreadsShown {
			fmt.Fprintf(&sb, "  … %d more (debug_stack lists them)\n", len(others)-n)
			break
		}
		fmt.Fprintf(&sb, "  %s\n", l.Entry(i))
	}
	return sb.String()
}

func boolRank(own bool) int {
	if own {
		return 0
	}
	return 1
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
