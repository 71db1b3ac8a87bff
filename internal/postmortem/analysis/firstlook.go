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
	// Crash says where a process core crashed ("crashed: SIGSEGV in f at
	// f.c:3"), and Frames are the top frames; both are empty for kernel
	// dumps, and when the debugger could not read the core.
	Crash  string
	Frames []string
}

// Open opens t in dumps (or shares the session that has it open) and takes
// the first look at a process core (a remote one with its host's gdb).
// projectDir is where the program's own code is, for the crashing-frame
// rule.
func Open(ctx context.Context, dumps *postmortem.Manager, t postmortem.Target, projectDir string) (Opened, error) {
	s, reused, err := dumps.Open(ctx, t)
	if err != nil {
		return Opened{}, err
	}
	o := Opened{Session: s, Reused: reused}
	if !t.Kernel {
		ctx, cancel := context.WithTimeout(ctx, firstLookTimeout)
		defer cancel()
		if tr := backtrace(ctx, dumps, t); tr != nil {
			o.Crash, o.Frames = firstLook(tr, projectDir)
		}
	}
	return o, nil
}

// backtrace is the batch backtrace of a process core, taken on its host;
// nil when the debugger could not read it (dump_report then explains).
func backtrace(ctx context.Context, dumps *postmortem.Manager, t postmortem.Target) *coredump.Trace {
	if t.SSHHost == "" {
		tr, _ := coredump.Backtrace(ctx, t.Program, t.Core, coredump.BacktraceOptions{Timeout: firstLookTimeout})
		return tr
	}
	conn, err := dumps.Host(ctx, t.SSHHost)
	if err != nil {
		return nil
	}
	text, err := conn.Run(ctx, coredump.GDBArgv("gdb", t.Program, t.Core), firstLookTimeout)
	if err != nil {
		return nil
	}
	tr, _ := coredump.ParseGDBBacktrace(text)
	return tr
}

// firstLook is the crashing thread of a process core, so that the first
// answer already says where it crashed: "crashed: SIGSEGV in zlibVersion
// at zutil.c:29" and the top frames.
func firstLook(tr *coredump.Trace, projectDir string) (crash string, frames []string) {
	if len(tr.Frames) == 0 {
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
