package hang

import (
	"fmt"
	"io"
)

// maxFramesShown bounds each stack in WriteStuck; the report has them all.
const maxFramesShown = 8

// WriteStuck renders the stacks that matter for a tool's text answer:
//
//	stacks at the kill (2 of 3; all in the output):
//	  thread 2 "abba" — blocked in pthread_mutex_lock at abba.c:10 (LWP 12), waits for a mutex LWP 13 holds
//	    #0 futex_wait at ../sysdeps/nptl/futex-internal.h:146
//	    ...
func (r *Report) WriteStuck(w io.Writer) {
	if r == nil || len(r.Stuck) == 0 {
		for _, n := range r.notes() {
			fmt.Fprintf(w, "stacks not taken: %s\n", n)
		}
		return
	}
	fmt.Fprintf(w, "stacks at the kill (%d of %d; all in the output):\n", len(r.Stuck), r.TotalStacks)
	for _, s := range r.Stuck {
		st := r.Stacks[s.Stack]
		name := ""
		if st.Name != "" {
			name = fmt.Sprintf(" %q", st.Name)
		}
		fmt.Fprintf(w, "  %s %d%s — %s%s\n", st.Kind, st.ID, name, where(s), holding(s))
		for i, f := range st.Frames {
			if i == maxFramesShown {
				fmt.Fprintf(w, "    … %d more frames\n", len(st.Frames)-i)
				break
			}
			fmt.Fprintf(w, "    %s\n", f)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// holding says which thread holds the mutex a thread waits for, or that
// it holds one another waits for.
func holding(s Stuck) string {
	switch {
	case s.HeldBy != 0:
		return fmt.Sprintf(" (LWP %d), waits for a mutex LWP %d holds", s.LWP, s.HeldBy)
	case s.Holder:
		return fmt.Sprintf(" (LWP %d), holds a mutex another thread waits for", s.LWP)
	}
	return ""
}

func (r *Report) notes() []string {
	if r == nil {
		return nil
	}
	return r.Notes
}
