package dap

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
)

// AddBreakpoint implements debugger.Backend. DAP has no "add one
// breakpoint": the whole set for the source (or every function breakpoint)
// is sent again with the new one in it.
func (b *Backend) AddBreakpoint(ctx context.Context, spec debugger.BreakpointSpec) (debugger.Breakpoint, error) {
	if err := spec.Validate(); err != nil {
		return debugger.Breakpoint{}, err
	}
	if err := b.usable(false); err != nil {
		return debugger.Breakpoint{}, err
	}
	return b.addBreakpoint(ctx, spec)
}

// addBreakpoint adds without checking the target state: start-up uses it
// before the target exists.
func (b *Backend) addBreakpoint(ctx context.Context, spec debugger.BreakpointSpec) (debugger.Breakpoint, error) {
	if err := spec.Validate(); err != nil {
		return debugger.Breakpoint{}, err
	}
	if err := b.checkBreakpointCaps(spec); err != nil {
		return debugger.Breakpoint{}, err
	}
	if err := b.checkLogpoint(spec); err != nil {
		return debugger.Breakpoint{}, err
	}
	if k := spec.Kind(); k == "watch" || k == "exception" {
		return b.addSpecial(ctx, spec)
	}
	b.mu.Lock()
	local := b.host == "" // a remote session's files are the host's: left as given
	var dirs []string
	if b.fl.kind == KindDlv {
		dirs = b.srcDirs // lldb and gdb match a relative file by its name
	}
	b.mu.Unlock()
	if spec.File != "" && local {
		spec.File = resolveSource(spec.File, dirs)
	}
	b.bpMu.Lock()
	defer b.bpMu.Unlock()
	b.mu.Lock()
	b.nextBP++
	if spec.LogMessage != "" && b.book == nil {
		b.book = debugger.NewLogBook(b.cfg.Dir)
	}
	bp := &breakpoint{Breakpoint: debugger.Breakpoint{ID: b.nextBP, Kind: spec.Kind(), Spec: spec}, fn: spec.Function}
	b.bps[bp.ID] = bp
	b.mu.Unlock()
	err := b.sync(ctx, spec.File)
	if err == nil && spec.LogMessage != "" && spec.Function != "" && !b.functionLogMessages() {
		err = b.logpointAtLine(ctx, bp)
	}
	if err != nil {
		b.mu.Lock()
		delete(b.bps, bp.ID)
		b.mu.Unlock()
		if bp.fn != "" {
			_ = b.sync(ctx, "") // the adapter may hold it: best effort, the error below is the answer
		}
		return debugger.Breakpoint{}, fmt.Errorf("setting breakpoint at %s: %w", spec, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return bp.Breakpoint, nil
}

func (b *Backend) checkBreakpointCaps(spec debugger.BreakpointSpec) error {
	caps := b.Capabilities()
	switch {
	case spec.Function != "" && !caps.SupportsFunctionBreakpoints:
		return fmt.Errorf("%s: %w", b.lacks("function breakpoints", "supportsFunctionBreakpoints"), debugger.ErrUnsupported)
	case spec.Condition != "" && !caps.SupportsConditionalBreakpoints:
		return fmt.Errorf("%s: %w", b.lacks("conditional breakpoints", "supportsConditionalBreakpoints"), debugger.ErrUnsupported)
	case spec.HitCondition != "" && !caps.SupportsHitConditionalBreakpoints:
		return fmt.Errorf("%s: %w", b.lacks("hit-count breakpoints", "supportsHitConditionalBreakpoints"), debugger.ErrUnsupported)
	}
	return nil
}

// RemoveBreakpoint implements debugger.Backend.
func (b *Backend) RemoveBreakpoint(ctx context.Context, id int) error {
	if err := b.usable(false); err != nil {
		return err
	}
	b.bpMu.Lock()
	defer b.bpMu.Unlock()
	b.mu.Lock()
	bp, ok := b.bps[id]
	delete(b.bps, id)
	b.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w %d", debugger.ErrUnknownBreakpoint, id)
	}
	if err := b.unset(ctx, bp); err != nil {
		b.mu.Lock()
		b.bps[id] = bp
		b.mu.Unlock()
		return fmt.Errorf("removing breakpoint %d: %w", id, err)
	}
	return nil
}

// Breakpoints implements debugger.Backend.
func (b *Backend) Breakpoints() []debugger.Breakpoint {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]debugger.Breakpoint, 0, len(b.bps))
	for _, bp := range b.bps {
		out = append(out, bp.Breakpoint)
	}
	slices.SortFunc(out, func(x, y debugger.Breakpoint) int { return x.ID - y.ID })
	return out
}

// group returns the registry entries sent together with file ("" = the
// function breakpoints), in ID order. Caller holds mu.
func (b *Backend) group(file string) []*breakpoint {
	var out []*breakpoint
	for _, bp := range b.bps {
		if bp.file() == file && (file != "" || bp.fn != "") {
			out = append(out, bp)
		}
	}
	slices.SortFunc(out, func(x, y *breakpoint) int { return x.ID - y.ID })
	return out
}

// sync sends the registry's set for file ("" = functions) and records what
// the adapter made of each. Caller holds bpMu.
func (b *Backend) sync(ctx context.Context, file string) error {
	b.mu.Lock()
	group := b.group(file)
	b.mu.Unlock()
	var body godap.SetBreakpointsResponseBody
	var err error
	if file == "" {
		fbs := make([]functionBreakpoint, len(group))
		for i, bp := range group {
			fbs[i] = functionBreakpoint{FunctionBreakpoint: godap.FunctionBreakpoint{Name: bp.fn, Condition: bp.Spec.Condition, HitCondition: bp.Spec.HitCondition},
				LogMessage: b.adapterLogMessage(bp.ID, bp.Spec.LogMessage)}
		}
		err = b.call(ctx, "setFunctionBreakpoints", functionBreakpointsArgs{Breakpoints: fbs}, &body)
	} else {
		sbs := make([]godap.SourceBreakpoint, len(group))
		for i, bp := range group {
			line := bp.Spec.Line
			if bp.atFile != "" {
				line = bp.atLine
			}
			sbs[i] = godap.SourceBreakpoint{Line: line, Condition: bp.Spec.Condition, HitCondition: bp.Spec.HitCondition,
				LogMessage: b.adapterLogMessage(bp.ID, bp.Spec.LogMessage)}
		}
		err = b.call(ctx, "setBreakpoints", godap.SetBreakpointsArguments{
			Source: godap.Source{Name: filepath.Base(file), Path: file}, Breakpoints: sbs,
		}, &body)
	}
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, bp := range group {
		if i < len(body.Breakpoints) {
			applyAdapterBreakpoint(bp, body.Breakpoints[i])
		}
	}
	return nil
}

// file is the source file bp is sent with ("" for a function breakpoint).
func (bp *breakpoint) file() string {
	if bp.atFile != "" {
		return bp.atFile
	}
	return bp.Spec.File
}

// functionLogMessages reports whether the adapter reads a logMessage on a
// function breakpoint: lldb-vscode's own extension of DAP, which lldb-dap
// (22) no longer has and no capability tells.
func (b *Backend) functionLogMessages() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fl.kind != KindLLDB || b.adapterName == "" || strings.HasPrefix(b.adapterName, "lldb-vscode")
}

// logpointAtLine moves a function logpoint just sent as a function
// breakpoint (whose log message the adapter ignores: it would stop) to
// the source line that breakpoint resolved to, where the adapter reads a
// log message, and says so in its Via.
func (b *Backend) logpointAtLine(ctx context.Context, bp *breakpoint) error {
	b.mu.Lock()
	file, line, msg, name := bp.File, bp.Line, bp.Message, b.adapterName
	if file != "" && line > 0 {
		bp.atFile, bp.atLine = file, line
		bp.Via = fmt.Sprintf("set at %s's first line, %s:%d: the %s adapter reads no log message on a function breakpoint", bp.fn, filepath.Base(file), line, name)
	}
	b.mu.Unlock()
	if file == "" || line <= 0 {
		return fmt.Errorf("a logpoint on function %s: the %s adapter reads no log message on a function breakpoint, and %s resolved to no source line to set one at (%s); give file:line: %w",
			bp.fn, name, bp.fn, msg, debugger.ErrUnsupported)
	}
	if err := b.sync(ctx, ""); err != nil {
		return err
	}
	return b.sync(ctx, file)
}

// functionBreakpoint is DAP's with a logMessage, which the protocol has
// only for source breakpoints but lldb-vscode reads on any (checkLogpoint
// refuses a function logpoint to the other adapters).
type functionBreakpoint struct {
	godap.FunctionBreakpoint
	LogMessage string `json:"logMessage,omitempty"`
}

type functionBreakpointsArgs struct {
	Breakpoints []functionBreakpoint `json:"breakpoints"`
}

func applyAdapterBreakpoint(bp *breakpoint, a godap.Breakpoint) {
	bp.adapterID = a.Id
	bp.Verified = a.Verified
	bp.Message = a.Message
	if !a.Verified && bp.Message == "" {
		bp.Message = "unverified: the debugger found no code at this location (yet)"
	}
	if a.Source != nil && a.Source.Path != "" {
		bp.File = a.Source.Path
	}
	if a.Line != 0 {
		bp.Line = a.Line
	}
}

// resolveSource makes a relative source path absolute against the first of
// dirs (for dlv, which matches a breakpoint's file only by its full path:
// the launch's working directory, the program's directory), then the
// server's own, that holds it. A path found nowhere is left as given, for
// the debugger's own matching (lldb and gdb match a name).
func resolveSource(file string, dirs []string) string {
	if filepath.IsAbs(file) {
		return file
	}
	for _, dir := range slices.Concat(dirs, []string{"."}) {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, file)); err == nil {
			if abs, err := filepath.Abs(filepath.Join(dir, file)); err == nil {
				return abs
			}
		}
	}
	return file
}
