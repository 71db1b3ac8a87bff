package background

import (
	"fmt"
	"io"
	"strings"
)

// State is "running", or the verdict line once the job has ended.
func (j *Job) State() string {
	if o := j.Outcome(); o != nil {
		return o.Verdict.Line
	}
	return "running"
}

// WriteList lists jobs under their count and how many run, one a line:
// id, pid, argv and state.
func WriteList(w io.Writer, jobs []*Job) {
	var b strings.Builder
	running := 0
	for _, j := range jobs {
		state := j.State()
		if j.Outcome() == nil {
			running++
		}
		fmt.Fprintf(&b, "%s  pid %d  %s  — %s\n", j.ID, j.Pid, strings.Join(j.Argv, " "), state)
	}
	fmt.Fprintf(w, "PROCESSES: %d, %d running\n%s", len(jobs), running, b.String())
}
