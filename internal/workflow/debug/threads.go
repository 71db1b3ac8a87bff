package debug

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/fault"
)

// threadID turns the thread a caller names into the backend's id: an id
// among threads as it is, else the Nth thread of the list (1-based, as
// debuggers number them), else a refusal that lists the threads there are.
// Without a list (the backend could not give one) n goes as it is.
func threadID(threads []debugger.Thread, n int) (int, error) {
	if n == 0 || len(threads) == 0 {
		return n, nil
	}
	for _, t := range threads {
		if t.ID == n {
			return n, nil
		}
	}
	if n >= 1 && n <= len(threads) {
		return threads[n-1].ID, nil
	}
	var sb strings.Builder
	writeThreadList(&sb, threads, 0)
	return 0, fault.Usagef("no thread %d: the threads are %s", n, sb.String())
}

// maxThreadsListed bounds the list an answer carries.
const maxThreadsListed = 16

// writeThreads says which threads there are when there is more than one,
// and how to see another's stack.
func writeThreads(sb *strings.Builder, threads []debugger.Thread, shown int) {
	if len(threads) < 2 {
		return
	}
	fmt.Fprintf(sb, "threads (%d): ", len(threads))
	writeThreadList(sb, threads, shown)
	sb.WriteString("; thread: ID shows another's stack\n")
}

func writeThreadList(sb *strings.Builder, threads []debugger.Thread, shown int) {
	for i, t := range threads {
		if i == maxThreadsListed {
			fmt.Fprintf(sb, ", and %d more", len(threads)-i)
			break
		}
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(sb, "%d", t.ID)
		if t.Name != "" && t.Name != fmt.Sprint(t.ID) {
			fmt.Fprintf(sb, " (%s)", t.Name)
		}
		if t.ID == shown {
			sb.WriteString(" [this stack]")
		}
	}
}
