package analysis

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/postmortem"
)

// firstLookTimeout bounds the batch backtrace dump_open takes of a process
// core: the answer is a first look, dump_report the full one.
const firstLookTimeout = 20 * time.Second

// maxFirstLookFrames is how many frames dump_open shows.
const maxFirstLookFrames = 6

// Opened is a dump session opened for a caller, with the first look at a
// local process core.
type Opened struct {
	Session *postmortem.Session
	// Reused is set when the dump was already open.
	Reused bool
	// Crash says where a local process core crashed ("crashed: SIGSEGV in
	// f at f.c:3"), and Frames are the top frames; both are empty for
	// kernel and remote dumps, and when the debugger could not read the
	// core.
	Crash  string
	Frames []string
}

// Open opens t in dumps (or shares the session that has it open) and takes
// the first look at a local process core. projectDir is where the program's
// own code is, for the crashing-frame rule.
func Open(ctx context.Context, dumps *postmortem.Manager, t postmortem.Target, projectDir string) (Opened, error) {
	s, reused, err := dumps.Open(ctx, t)
	if err != nil {
		return Opened{}, err
	}
	o := Opened{Session: s, Reused: reused}
	if !t.Kernel && t.SSHHost == "" {
		o.Crash, o.Frames = firstLook(ctx, t.Program, t.Core, projectDir)
	}
	return o, nil
}

// firstLook is the crashing thread of a local process core, so that the
// first answer already says where it crashed: "crashed: SIGSEGV in
// zlibVersion at zutil.c:29" and the top frames. It says nothing when the
// debugger could not read the core (dump_report then explains).
func firstLook(ctx context.Context, program, core, projectDir string) (crash string, frames []string) {
	ctx, cancel := context.WithTimeout(ctx, firstLookTimeout)
	defer cancel()
	tr, err := coredump.Backtrace(ctx, program, core, coredump.BacktraceOptions{Timeout: firstLookTimeout})
	if err != nil || len(tr.Frames) == 0 {
		return "", nil
	}
	f, ok := tr.Crashing(projectDir)
	if !ok {
		return "", nil
	}
	var b strings.Builder
	b.WriteString("crashed")
	if tr.Signal != "" {
		b.WriteString(": " + tr.Signal)
	}
	if f.Function != "" {
		b.WriteString(" in " + f.Function)
	}
	if f.File != "" {
		fmt.Fprintf(&b, " at %s:%d", f.File, f.Line)
	}
	for i, fr := range tr.Frames {
		if i == maxFirstLookFrames {
			frames = append(frames, fmt.Sprintf("… %d more frames", len(tr.Frames)-i))
			break
		}
		frames = append(frames, fr.String())
	}
	return b.String(), frames
}
