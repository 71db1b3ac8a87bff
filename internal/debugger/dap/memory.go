package dap

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
)

// Memory, registers and disassembly: the protocol's readMemory and
// disassemble requests and the "Registers" scope where the adapter offers
// them (its capabilities say so), else lldb's own commands through
// evaluate (lldb-vscode 16 has neither request), said in the result's Via.
// gdb's DAP (14 and later) and dlv have both requests; dlv shows registers
// once its showRegisters setting is on.

// ReadMemory implements debugger.Backend.
func (b *Backend) ReadMemory(ctx context.Context, req debugger.MemoryRequest) (debugger.Memory, error) {
	if err := req.Check(); err != nil {
		return debugger.Memory{}, err
	}
	fr, err := b.frameOf(ctx, req.Frame)
	if err != nil {
		return debugger.Memory{}, err
	}
	caps, kind := b.capsAndKind()
	switch {
	case caps.SupportsReadMemoryRequest:
		return b.readMemory(ctx, req, fr.ID)
	case kind == KindLLDB:
		out, err := b.lldbCommand(ctx, fr, debugger.LLDBMemoryCommand(req))
		if err == nil && debugger.LLDBByValue(out) {
			byAddr := req
			byAddr.Address = debugger.LLDBAddressOf(req.Address)
			out, err = b.lldbCommand(ctx, fr, debugger.LLDBMemoryCommand(byAddr))
		}
		if err != nil {
			return debugger.Memory{}, err
		}
		m, err := debugger.ParseLLDBMemory(out, req.Address)
		m.Via = "lldb's memory read through evaluate (" + b.lacks("readMemory request", "supportsReadMemoryRequest") + ")"
		return m, err
	}
	return debugger.Memory{}, b.unsupported("reading memory", "readMemory request", "supportsReadMemoryRequest")
}

func (b *Backend) unsupported(what, request, capability string) error {
	return fmt.Errorf("%s: %w: %s, and no command language triage falls back on (debug_command passes the debugger's own)",
		what, debugger.ErrUnsupported, b.lacks(request, capability))
}

// lacks says what the adapter in use lacks, in its own terms: the
// capability its initialize response does not give.
func (b *Backend) lacks(what, capability string) string {
	return fmt.Sprintf("the %s adapter has no %s: no %s in its capabilities", b.adapterLabel(), what, capability)
}

// adapterLabel names the adapter in use: its program (lldb-vscode-16,
// lldb-dap-22, gdb, dlv), else its kind.
func (b *Backend) adapterLabel() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.adapterName != "" {
		return b.adapterName
	}
	return b.fl.kind
}

func (b *Backend) capsAndKind() (godap.Capabilities, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.caps, b.fl.kind
}

// readMemory reads through the protocol: at an address, or at the memory
// reference (else the value) evaluate gives for an expression.
func (b *Backend) readMemory(ctx context.Context, req debugger.MemoryRequest, frame int) (debugger.Memory, error) {
	ref, err := b.reference(ctx, req.Address, frame)
	if err != nil {
		return debugger.Memory{}, err
	}
	var body godap.ReadMemoryResponseBody
	if err := b.call(ctx, "readMemory", godap.ReadMemoryArguments{MemoryReference: ref, Count: req.Count}, &body); err != nil {
		return debugger.Memory{}, fmt.Errorf("reading memory at %s: %w", req.Address, err)
	}
	data, err := base64.StdEncoding.DecodeString(body.Data)
	if err != nil {
		return debugger.Memory{}, fmt.Errorf("reading memory at %s: the adapter's data: %v", req.Address, err)
	}
	addr, _ := parseAddress(body.Address)
	if len(data) == 0 {
		return debugger.Memory{}, fmt.Errorf("%w at %s (%s): none of %d bytes could be read", debugger.ErrUnreadable, req.Address, body.Address, req.Count)
	}
	return debugger.Memory{Address: addr, Bytes: data, Unreadable: body.UnreadableBytes}, nil
}

// reference is the memory reference of an address, or of an expression's
// value.
func (b *Backend) reference(ctx context.Context, expr string, frame int) (string, error) {
	if a, ok := parseAddress(expr); ok {
		return "0x" + strconv.FormatUint(a, 16), nil
	}
	var body godap.EvaluateResponseBody
	if err := b.call(ctx, "evaluate", godap.EvaluateArguments{Expression: expr, FrameId: frame, Context: "watch"}, &body); err != nil {
		return "", fmt.Errorf("evaluating %q for its address: %w", expr, err)
	}
	a := hexRE().FindString(body.Result)
	if strings.HasSuffix(strings.TrimSpace(body.Type), "*") && strings.HasPrefix(body.Result, a) && a != "" {
		// A pointer's memory is where it points. lldb-dap 22 gives a
		// pointer variable's own location as its memoryReference.
		return a, nil
	}
	if body.MemoryReference != "" {
		return body.MemoryReference, nil
	}
	if a != "" {
		return a, nil
	}
	return "", fmt.Errorf("%q = %s is no address: give a pointer, an array, &name or an address", expr, body.Result)
}

var hexRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b0x[0-9a-fA-F]+\b`) })

// parseAddress reads 0x… or decimal.
func parseAddress(s string) (uint64, bool) {
	s = strings.TrimSpace(s)
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		a, err := strconv.ParseUint(h, 16, 64)
		return a, err == nil
	}
	a, err := strconv.ParseUint(s, 10, 64)
	return a, err == nil
}

// frameOf finds the frame of id (0: the top one) among the stopped
// thread's, with its index and pc.
func (b *Backend) frameOf(ctx context.Context, id int) (debugger.Frame, error) {
	frames, err := b.Stack(ctx, 0, b.lim.MaxFrames)
	if err != nil {
		return debugger.Frame{}, err
	}
	for _, f := range frames {
		if id <= 0 || f.ID == id {
			return f, nil
		}
	}
	return debugger.Frame{}, fmt.Errorf("no frame %d among the stopped thread's top %d: debug_stack gives their ids", id, len(frames))
}

// lldbCommand runs an lldb command through evaluate with frame selected
// first: lldb-vscode runs a command in the frame lldb has selected, not
// in the request's.
func (b *Backend) lldbCommand(ctx context.Context, fr debugger.Frame, cmd string) (string, error) {
	for _, c := range []string{"frame select " + strconv.Itoa(fr.Index), cmd} {
		var body godap.EvaluateResponseBody
		if err := b.call(ctx, "evaluate", godap.EvaluateArguments{Expression: "`" + c, FrameId: fr.ID, Context: "repl"}, &body); err != nil {
			return "", fmt.Errorf("%s: %w", c, err)
		}
		if c == cmd {
			return body.Result, nil
		}
		if e := debugger.LLDBError(body.Result); e != "" {
			return "", fmt.Errorf("%s: %s", c, e)
		}
	}
	return "", nil
}
