package debug

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

type memoryParams struct {
	sessionParam
	Kind    string `json:"kind,omitempty" jsonschema:"memory, registers or disassemble"`
	Address string `json:"address,omitempty" jsonschema:"or expression (or function)"`
	Count   int    `json:"count,omitempty" jsonschema:"bytes or instructions"`
	Frame   int    `json:"frame,omitempty" jsonschema:"default: top"`
}

// MemoryOutput is memory, registers or a disassembly: the fields of its
// kind.
type MemoryOutput struct {
	SessionID    string             `json:"session_id" jsonschema:"the session"`
	Address      string             `json:"address,omitempty" jsonschema:"of the first byte"`
	Hex          string             `json:"hex,omitempty" jsonschema:"the bytes read"`
	Registers    []wire.Register    `json:"registers,omitempty" jsonschema:"general-purpose"`
	Instructions []wire.Instruction `json:"instructions,omitempty" jsonschema:"in address order"`
	// Note says what was left out (unreadable bytes, instructions beyond
	// the count) and the debugger command used where the adapter lacks
	// the protocol's request.
	Note string `json:"note,omitempty" jsonschema:"what was cut; the debugger command used where the adapter lacks the request"`
}

func (h *handler) memory(ctx context.Context, c *catalog.Call, in memoryParams) (catalog.Result[MemoryOutput], error) {
	readers := map[string]func(context.Context, debugger.Backend, memoryParams, *MemoryOutput, *strings.Builder) (string, error){
		"": h.readMemory, "memory": h.readMemory, "registers": readRegisters, "disassemble": h.disassemble}
	read, ok := readers[strings.ToLower(strings.TrimSpace(in.Kind))]
	if !ok {
		return catalog.Result[MemoryOutput]{}, fault.Usagef("kind %q: want memory, registers or disassemble", in.Kind)
	}
	b, id, err := h.backend(ctx, in.SessionID)
	if err != nil {
		return catalog.Result[MemoryOutput]{}, err
	}
	if in.Frame, err = frameID(ctx, b, 0, in.Frame); err != nil {
		return catalog.Result[MemoryOutput]{}, describe(err)
	}
	out := MemoryOutput{SessionID: id}
	var sb strings.Builder
	via, err := read(ctx, b, in, &out, &sb)
	if err != nil {
		return catalog.Result[MemoryOutput]{}, describeMachine(err)
	}
	if via != "" {
		fmt.Fprintf(&sb, "via %s\n", via)
		out.Note = debugger.JoinCut(out.Note, "via "+via)
	}
	return catalog.Result[MemoryOutput]{Text: sb.String(), Output: out}, nil
}

// describeMachine words the errors of machine-level reads: memory that is
// not there and a backend that cannot are the caller's to change.
func describeMachine(err error) error {
	if errors.Is(err, debugger.ErrUnreadable) || errors.Is(err, debugger.ErrUnsupported) {
		return fault.Usage(err)
	}
	if fault.KindOf(err) == fault.KindNone && !errors.Is(err, debugger.ErrSessionDead) && strings.Contains(err.Error(), "out of range") {
		return fault.Usage(err)
	}
	return describe(err)
}

// readMemory reads and shows memory, and says how it was read.
func (h *handler) readMemory(ctx context.Context, b debugger.Backend, in memoryParams, out *MemoryOutput, sb *strings.Builder) (string, error) {
	m, err := debugger.ReadMemory(ctx, b, debugger.MemoryRequest{Address: in.Address, Count: in.Count, Frame: in.Frame})
	if err != nil {
		return "", err
	}
	out.Address, out.Hex, out.Note = fmt.Sprintf("%#x", m.Address), fmt.Sprintf("%x", m.Bytes), m.UnreadableNote()
	m.WriteText(sb, in.Address, h.svc.Config.BudgetBytes())
	return m.Via, nil
}

func readRegisters(ctx context.Context, b debugger.Backend, in memoryParams, out *MemoryOutput, sb *strings.Builder) (string, error) {
	regs, err := b.Registers(ctx, in.Frame)
	if err != nil {
		return "", err
	}
	out.Registers = wire.RegistersOf(regs.Registers)
	regs.WriteText(sb, in.Frame)
	return regs.Via, nil
}

// disassemble disassembles around the frame's pc, or the function named
// by address.
func (h *handler) disassemble(ctx context.Context, b debugger.Backend, in memoryParams, out *MemoryOutput, sb *strings.Builder) (string, error) {
	req := debugger.DisassembleRequest{Frame: in.Frame, Function: in.Address, Count: in.Count}
	d, err := debugger.Disassemble(ctx, b, &req)
	if err != nil {
		return "", err
	}
	out.Instructions, out.Note = wire.InstructionsOf(d.Instructions), d.Cut
	d.WriteText(sb, req, h.svc.Config.BudgetBytes())
	return d.Via, nil
}
