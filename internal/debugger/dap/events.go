package dap

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
)

// stopped records a "stopped" event; b.mu is held.
func (b *Backend) stopped(e Event) {
	var body godap.StoppedEventBody
	_ = json.Unmarshal(e.Body, &body)
	b.state.Status = debugger.StatusStopped
	b.state.LastStop = stopFromEvent(body)
	if body.Reason == dataStopReason {
		// dlv names no data breakpoint: each of ours is a candidate, and
		// settleWatch keeps the one whose value changed.
		b.state.LastStop.BreakpointIDs = b.ourDataIDs(body.HitBreakpointIds, len(body.HitBreakpointIds) == 0)
		b.markData(b.state.LastStop)
	} else {
		b.state.LastStop.BreakpointIDs = b.ourIDs(body.HitBreakpointIds)
	}
	b.markOurs(b.state.LastStop, body.Reason)
	if b.entryPending {
		b.entryPending = false
		if stop := b.state.LastStop; stop.Signal == "SIGSTOP" || stop.Reason == debugger.StopEntry {
			stop.Reason, stop.Signal = debugger.StopEntry, ""
		}
	}
	if b.pausing {
		// lldb reports the stop a pause causes as signal SIGSTOP, or
		// as a trace stop; a breakpoint or a real signal stays itself.
		// So is a stop at a logpoint: the pause met its hit.
		stop := b.state.LastStop
		if stop.Signal == "SIGSTOP" || stop.Signal == "SIGINT" || stop.Reason == debugger.StopStep || stop.Reason == debugger.StopOther || b.onlyLogpoints(stop.BreakpointIDs) {
			stop.Reason, stop.Signal = debugger.StopPause, ""
		}
		b.pausing = false
	}
	if body.ThreadId != 0 {
		b.thread = body.ThreadId
	}
	b.bump()
}

// ourIDs names the breakpoints of the adapter's ids (a stopped event's
// hitBreakpointIds) by our ids; an id we did not set is left out. b.mu is
// held.
func (b *Backend) ourIDs(adapterIDs []int) []int {
	var ids []int
	for _, aid := range adapterIDs {
		for _, bp := range b.bps {
			if bp.adapterID != 0 && bp.adapterID == aid {
				ids = append(ids, bp.ID)
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// terminated records a "terminated" event, an exit unless one was seen
// already; b.mu is held.
func (b *Backend) terminated() {
	if b.state.Status == debugger.StatusExited || b.state.Status == debugger.StatusDead {
		return
	}
	b.state.Status = debugger.StatusExited
	if b.state.LastStop == nil || b.state.LastStop.Reason != debugger.StopExited {
		b.state.LastStop = &debugger.Stop{Reason: debugger.StopExited, Description: "debug session terminated", At: time.Now()}
	}
	b.bump()
}

// NotifyChanges implements debugger.Notifier: f is told after each stop,
// exit or death, from the goroutine that saw it.
func (b *Backend) NotifyChanges(f func()) {
	b.mu.Lock()
	b.notify = f
	b.mu.Unlock()
}

// told runs fn with mu held, then tells notify when fn bumped the stop
// generation (a stop, an exit, a death).
func (b *Backend) told(fn func()) {
	b.mu.Lock()
	gen := b.stopGen
	fn()
	f := b.notify
	if b.stopGen == gen {
		f = nil
	}
	b.mu.Unlock()
	if f != nil {
		f()
	}
}

// onEvent runs on the Conn's reader goroutine: no requests, no blocking.
func (b *Backend) onEvent(e Event) {
	switch e.Name {
	case "initialized":
		b.initOnce.Do(func() { close(b.initialized) })
		return
	case "output":
		// Program output is the target's business (the adapter's log has
		// it); a logpoint's hit goes to the session's event log.
		b.logOutput(e)
		return
	}
	b.told(func() { b.onStateEvent(e) })
}

// onStateEvent records an event that may change the state; b.mu is held.
func (b *Backend) onStateEvent(e Event) {
	switch e.Name {
	case "stopped":
		b.stopped(e)
	case "continued":
		if b.state.Status == debugger.StatusStopped {
			b.state.Status = debugger.StatusRunning
			close(b.changed)
			b.changed = make(chan struct{})
		}
	case "exited":
		var body godap.ExitedEventBody
		_ = json.Unmarshal(e.Body, &body)
		code := body.ExitCode
		b.state.Status = debugger.StatusExited
		b.state.LastStop = &debugger.Stop{Reason: debugger.StopExited, ExitCode: &code, At: time.Now()}
		b.bump()
	case "terminated":
		b.terminated()
	case "process":
		var body godap.ProcessEventBody
		if json.Unmarshal(e.Body, &body) == nil && body.SystemProcessId != 0 {
			b.state.Pid = body.SystemProcessId
		}
	case "breakpoint":
		var body godap.BreakpointEventBody
		if json.Unmarshal(e.Body, &body) == nil {
			for _, bp := range b.bps {
				if bp.adapterID != 0 && bp.adapterID == body.Breakpoint.Id {
					applyAdapterBreakpoint(bp, body.Breakpoint)
				}
			}
		}
	}
}

var signalRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bSIG[A-Z0-9]+\b`) })

func stopFromEvent(body godap.StoppedEventBody) *debugger.Stop {
	s := &debugger.Stop{
		ThreadID:      body.ThreadId,
		Description:   strings.TrimSpace(strings.Join(nonEmpty(body.Description, body.Text), ": ")),
		BreakpointIDs: body.HitBreakpointIds,
		At:            time.Now(),
	}
	switch body.Reason {
	case "breakpoint", "function breakpoint", "data breakpoint", "instruction breakpoint":
		s.Reason = debugger.StopBreakpoint
	case "step", "goto":
		s.Reason = debugger.StopStep
	case "pause":
		s.Reason = debugger.StopPause
	case "entry":
		s.Reason = debugger.StopEntry
	case "signal":
		s.Reason = debugger.StopSignal
	case "exception", "panic", "fatal error":
		s.Reason = debugger.StopException
	default:
		s.Reason = debugger.StopOther
	}
	if sig := signalRE().FindString(s.Description); sig != "" {
		s.Signal = sig
		if s.Reason == debugger.StopException || s.Reason == debugger.StopOther {
			s.Reason = debugger.StopSignal
		}
	}
	return s
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" && !strings.Contains(strings.Join(out, " "), s) {
			out = append(out, s)
		}
	}
	return out
}
