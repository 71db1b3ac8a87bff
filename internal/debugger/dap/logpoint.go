package dap

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
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
		return fmt.Errorf("logpoints: the %s adapter does not offer them (no supportsLogPoints in its capabilities): %w", kind, debugger.ErrUnsupported)
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

// logOutput records the logpoint hits an output event carries; b.mu is
// not held (the reader goroutine calls it).
func (b *Backend) logOutput(e Event) {
	var body godap.OutputEventBody
	if json.Unmarshal(e.Body, &body) != nil || !strings.Contains(body.Output, lpMark) {
		return
	}
	for _, line := range strings.Split(body.Output, "\n") {
		_, rest, ok := strings.Cut(line, lpMark)
		if !ok {
			continue
		}
		idText, rendered, _ := strings.Cut(rest, "\x1e")
		id, _ := strconv.Atoi(idText)
		b.mu.Lock()
		book, bp := b.book, b.bps[id]
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
	segs := strings.Split(strings.TrimRight(rendered, "\r\n"), lpSep)
	var sb strings.Builder
	for i, s := range segs {
		switch {
		case i%2 == 0:
			sb.WriteString(s)
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
