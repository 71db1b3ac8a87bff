package dap

import (
	"context"
	"fmt"
	"strings"
	"time"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
)

// Threads implements debugger.Backend: the adapter's threads request,
// each thread numbered as its debugger numbers it for a person. An lldb
// adapter's list is completed by lldb's own `thread list` (each thread's
// #N, tid and stop reason); dlv's threads are goroutines, numbered by
// their ids, and named by dlv after their location, which their frames
// tell better; gdb's are its thread numbers.
func (b *Backend) Threads(ctx context.Context) ([]debugger.Thread, error) {
	if err := b.usable(true); err != nil {
		return nil, err
	}
	var body godap.ThreadsResponseBody
	if err := b.call(ctx, "threads", nil, &body); err != nil {
		return nil, err
	}
	threads := make([]debugger.Thread, len(body.Threads))
	_, kind := b.capsAndKind()
	for i, t := range body.Threads {
		threads[i] = debugger.Thread{ID: t.Id, Name: t.Name}
		switch kind {
		case KindDlv:
			threads[i].Num, threads[i].Name = t.Id, ""
		case KindGDB:
			threads[i].Num = t.Id
		}
	}
	if kind == KindLLDB {
		return b.lldbThreads(ctx, threads), nil
	}
	return threads, nil
}

// lldbThreads completes an lldb adapter's threads with lldb's `thread
// list`. lldb-vscode answers a threads request just after a stop from the
// list before it (the run lock still held), one thread where there are
// three; lldb's own command updates the list first, so a longer list
// replaces the adapter's.
func (b *Backend) lldbThreads(ctx context.Context, threads []debugger.Thread) []debugger.Thread {
	var out godap.EvaluateResponseBody
	if b.call(ctx, "evaluate", godap.EvaluateArguments{Expression: "`thread list", Context: "repl"}, &out) != nil {
		return threads
	}
	listed := debugger.ParseLLDBThreads(out.Result, true)
	if len(listed) > len(threads) {
		return listed
	}
	for i, t := range threads {
		for _, l := range listed {
			if l.ID == t.ID {
				name := strings.TrimSpace(t.Name)
				threads[i] = l
				if l.Name == "" && name != fmt.Sprintf("Thread %d", l.Num) { // lldb-vscode's name for an unnamed one
					threads[i].Name = name
				}
			}
		}
	}
	return threads
}

// crashedThread makes a core's stop the crash of the thread lldb's own
// `thread list` gives a signal: lldb-vscode 16 reports the stop of a
// core of several threads in another one ("signal 0"), which would read
// as no crash, in the wrong thread.
func (b *Backend) crashedThread(ctx context.Context) {
	var out godap.EvaluateResponseBody
	if b.call(ctx, "evaluate", godap.EvaluateArguments{Expression: "`thread list", Context: "repl"}, &out) != nil {
		return
	}
	for _, t := range debugger.ParseLLDBThreads(out.Result, true) {
		sig := signalRE().FindString(t.Reason)
		if sig == "" || sig == "SIGSTOP" {
			continue
		}
		b.mu.Lock()
		if stop := b.state.LastStop; stop == nil || stop.ThreadID != t.ID || stop.Signal == "" {
			b.state.LastStop = &debugger.Stop{Reason: debugger.StopCore, Signal: sig, ThreadID: t.ID, Description: t.Reason, At: time.Now()}
			b.thread = t.ID
			b.bump()
		}
		b.mu.Unlock()
		return
	}
}
