package capture

import (
	"fmt"
	"io"
	"time"

	"github.com/triage-dev/triage/internal/verdict"
)

// WriteEnding says how the process ended: its signal or exit status, its
// pid and its wall time.
func (o *Outcome) WriteEnding(w io.Writer) {
	r := o.Result
	switch {
	case r.Signaled:
		fmt.Fprintf(w, "signal %s", r.SignalName)
		if m := verdict.SignalMeaning(r.Signal); m != "" {
			fmt.Fprintf(w, " (%s)", m)
		}
	default:
		fmt.Fprintf(w, "exit %d", r.ExitCode)
		if o.Verdict.Meaning != "" {
			fmt.Fprintf(w, " (%s)", o.Verdict.Meaning)
		}
	}
	fmt.Fprintf(w, "; pid %d; %s\n", r.Pid, r.Duration.Round(time.Millisecond))
}

// Core is the path of the core dump the run left, "" for none.
func (o *Outcome) Core() string {
	for _, a := range o.Artifacts {
		if a.Kind == "core" {
			return a.Path
		}
	}
	return ""
}
