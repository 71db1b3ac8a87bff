package dap

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/textclip"
)

// Logpoints through DAP: the logMessage sent to the adapter is ours,
// built from the caller's: a marker naming our breakpoint id, then the
// message with each {expression} between unit separators. The adapter's
// output event then says which logpoint it is (lldb-vscode tells no
// location) and which values came out empty (lldb-vscode gives no error
// text for an expression it cannot evaluate: the value is just missing).
const (
	lpMark = "\x1etriage-lp:"
	lpSep  = "\x1f"
)

// checkLogpoint refuses a logpoint the adapter cannot set, in the
// adapter's own terms (its capabilities), never silently.
func (b *Backend) checkLogpoint(spec debugger.BreakpointSpec) error {
	if spec.LogMessage == "" {
		return nil
	}
	kind := b.flavorKind()
	switch {
	case !b.Capabilities().SupportsLogPoints:
		return fmt.Errorf("logpoints: the %s adapter does not offer them (no supportsLogPoints in its capabilities): %w", b.adapterLabel(), debugger.ErrUnsupported)
	case spec.Function != "" && kind != KindLLDB:
		return fmt.Errorf("a logpoint on a function: DAP's function breakpoints carry no log message and the %s adapter reads none; give file:line: %w", kind, debugger.ErrUnsupported)
	case b.cfg.Dir == "":
		return fmt.Errorf("logpoints: the session has no directory for its event log: %w", debugger.ErrUnsupported)
	}
	return nil
}

// adapterLogMessage is the logMessage sent for our breakpoint id.
func (b *Backend) adapterLogMessage(id int, msg string) string {
	if msg == "" {
		return ""
	}
	parts, _ := debugger.ParseLogMessage(msg) // validated when added
	var sb strings.Builder
	sb.WriteString(lpMark + strconv.Itoa(id) + "\x1e")
	dlv := b.flavorKind() == KindDlv
	for _, p := range parts {
		switch {
		case p.Expr:
			sb.WriteString(lpSep + "{" + p.Text + "}" + lpSep)
		case dlv:
			// dlv makes the text a fmt format: a % must be doubled.
			sb.WriteString(strings.ReplaceAll(p.Text, "%", "%%"))
		default:
			sb.WriteString(p.Text)
		}
	}
	return sb.String()
}

// Logpoints implements debugger.LogpointBackend.
func (b *Backend) Logpoints() *debugger.LogBook {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.book
}

// lpPartMax bounds a hit's text gathered over output events: past it, the
// hit is recorded as it stands.
const lpPartMax = 16 << 10

// logOutput records the logpoint hits an output event carries; b.mu is
// not held (the reader goroutine calls it). A hit whose values have not
// all come (an odd number of separators after its marker) is kept and
// completed by the next console output events.
func (b *Backend) logOutput(e Event) {
	var body godap.OutputEventBody
	if json.Unmarshal(e.Body, &body) != nil {
		return
	}
	b.mu.Lock()
	text := body.Output
	if b.lpPart != "" && (body.Category == "" || body.Category == "console") {
		text, b.lpPart = b.lpPart+text, ""
	}
	b.mu.Unlock()
	if !strings.Contains(text, lpMark) {
		return
	}
	hits := strings.Split(text, lpMark)[1:]
	for i, rest := range hits {
		idText, rendered, _ := strings.Cut(rest, "\x1e")
		id, _ := strconv.Atoi(idText)
		b.mu.Lock()
		book, bp := b.book, b.bps[id]
		if bp != nil && i == len(hits)-1 && len(text) < lpPartMax && strings.Count(rendered, lpSep) < 2*countExprs(bp.Spec.LogMessage) {
			b.lpPart = lpMark + rest
			b.mu.Unlock()
			return
		}
		var hit debugger.LogHit
		if bp != nil {
			hit = debugger.LogHit{At: time.Now(), Breakpoint: id, Location: hitLocation(bp, body), Message: textclip.String(renderHit(bp.Spec.LogMessage, rendered), debugger.MaxHitMessage)}
		}
		b.mu.Unlock()
		if bp != nil && book != nil {
			_ = book.Append(hit) // a full or unwritable log drops the hit; the read says full
		}
	}
}

func countExprs(msg string) int {
	parts, _ := debugger.ParseLogMessage(msg)
	n := 0
	for _, p := range parts {
		if p.Expr {
			n++
		}
	}
	return n
}

// hitLocation is where a hit was: the output event's source (dlv tells
// it), else the breakpoint's resolved place.
func hitLocation(bp *breakpoint, body godap.OutputEventBody) string {
	switch {
	case body.Source != nil && body.Source.Path != "" && body.Line > 0:
		return fmt.Sprintf("%s:%d", filepath.Base(body.Source.Path), body.Line)
	case bp.File != "" && bp.Line > 0:
		loc := fmt.Sprintf("%s:%d", filepath.Base(bp.File), bp.Line)
		if bp.fn != "" {
			loc = bp.fn + " at " + loc
		}
		return loc
	}
	return bp.fn
}

// lldbValueError is the error in lldb-dap's "<error: …>" for a value it
// could not evaluate, on one line: lldb's "error:" lines (the first
// line may be a warning: "Expression evaluation in pure C not
// supported"), without the expression's name for itself.
func lldbValueError(v string) string {
	v = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(v), "<error:"), ">")
	var errs []string
	for _, l := range strings.Split(v, "\n") {
		if e, ok := strings.CutPrefix(strings.TrimSpace(l), "error: "); ok {
			errs = append(errs, userExprRE().ReplaceAllString(e, ""))
		}
	}
	if len(errs) == 0 {
		return strings.Join(strings.Fields(v), " ")
	}
	return strings.Join(errs, "; ")
}

var userExprRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^<user expression \d+>:\d+:\d+: `) })

// renderHit reads the adapter's rendering of our logMessage back into the
// caller's: the values between separators, an empty one said to be
// missing.
func renderHit(msg, rendered string) string {
	parts, _ := debugger.ParseLogMessage(msg)
	var exprs []string
	for _, p := range parts {
		if p.Expr {
			exprs = append(exprs, p.Text)
		}
	}
	segs := strings.Split(rendered, lpSep)
	var sb strings.Builder
	for i, s := range segs {
		switch {
		case i%2 == 0:
			s, _, _ = strings.Cut(s, "\n") // the hit's text ends at its line's end
			sb.WriteString(strings.TrimRight(s, "\r"))
		case strings.HasPrefix(s, "<error:"):
			expr := "?"
			if i/2 < len(exprs) {
				expr = exprs[i/2]
			}
			fmt.Fprintf(&sb, "<error: %s: %s>", expr, lldbValueError(s))
		case s == "":
			expr := "?"
			if i/2 < len(exprs) {
				expr = exprs[i/2]
			}
			fmt.Fprintf(&sb, "<error: %s has no value here (the adapter gave none: an unknown name, or an aggregate)>", expr)
		default:
			sb.WriteString(s)
		}
	}
	return sb.String()
}

// hasLogpoint reports a logpoint among the session's breakpoints.
func (b *Backend) hasLogpoint() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, bp := range b.bps {
		if bp.Spec.LogMessage != "" {
			return true
		}
	}
	return false
}

// onlyLogpoints reports ids (ours) that are all logpoints. b.mu is held.
func (b *Backend) onlyLogpoints(ids []int) bool {
	for _, id := range ids {
		if bp := b.bps[id]; bp == nil || bp.Spec.LogMessage == "" {
			return false
		}
	}
	return len(ids) > 0
}

// pauseBySignal pauses a target amid logpoint hits with a SIGSTOP of its
// own. An lldb adapter stops the target for each logpoint hit while it
// logs, and its pause (an interrupt) that meets one there fails or is
// lost; a signal waits in the kernel until the target runs again, and
// lldb then reports a SIGSTOP stop, which a pause reads as its own (lldb's
// interrupt is a SIGSTOP too). A remote target's signal goes through its
// host's connection. ok is false where it cannot be sent (no pid, an
// adapter other than lldb's) or brought no stop: the pause request is next.
func (b *Backend) pauseBySignal(ctx context.Context, gen int) (debugger.State, bool) {
	b.mu.Lock()
	pid, conn := b.state.Pid, b.ssh
	b.mu.Unlock()
	if pid <= 0 || b.flavorKind() != KindLLDB || stopProcess(ctx, conn, pid) != nil {
		return debugger.State{}, false
	}
	st, err := b.waitStop(ctx, gen, pauseResend)
	return st, err == nil && st.Status != debugger.StatusRunning
}

// stopProcess sends SIGSTOP to pid: here, or on conn's host.
func stopProcess(ctx context.Context, conn *remote.Conn, pid int) error {
	if conn == nil {
		return syscall.Kill(pid, syscall.SIGSTOP)
	}
	return conn.Signal(ctx, pid, "STOP")
}
