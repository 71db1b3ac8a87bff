package dap

import (
	"context"
	"fmt"
	"strings"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
)

// Registers implements debugger.Backend through the frame's "Registers"
// scope: lldb groups them (its "General Purpose Registers" are taken),
// dlv and gdb list them. dlv shows the scope only once its showRegisters
// setting is on, which is turned on here at the first ask.
func (b *Backend) Registers(ctx context.Context, frame int) (debugger.Registers, error) {
	fr, err := b.frameOf(ctx, frame)
	if err != nil {
		return debugger.Registers{}, err
	}
	_, kind := b.capsAndKind()
	ref, err := b.registersScope(ctx, fr.ID)
	if err == nil && ref == 0 && kind == KindDlv {
		var body godap.EvaluateResponseBody
		if err = b.call(ctx, "evaluate", godap.EvaluateArguments{Expression: "dlv config showRegisters true", FrameId: fr.ID, Context: "repl"}, &body); err == nil {
			ref, err = b.registersScope(ctx, fr.ID)
		}
	}
	switch {
	case err != nil:
		return debugger.Registers{}, err
	case ref != 0:
		regs, err := b.registerList(ctx, ref)
		return debugger.Registers{Registers: regs}, err
	case kind == KindLLDB:
		out, err := b.lldbCommand(ctx, fr, debugger.LLDBRegistersCommand)
		if err != nil {
			return debugger.Registers{}, err
		}
		regs, err := debugger.ParseLLDBRegisters(out)
		return debugger.Registers{Registers: regs, Via: "lldb's register read through evaluate (the frame has no Registers scope)"}, err
	}
	return debugger.Registers{}, unsupported("reading registers", kind, "Registers scope")
}

// registersScope is the variables reference of the frame's registers
// scope, or 0.
func (b *Backend) registersScope(ctx context.Context, frame int) (int, error) {
	var scopes godap.ScopesResponseBody
	if err := b.call(ctx, "scopes", godap.ScopesArguments{FrameId: frame}, &scopes); err != nil {
		return 0, err
	}
	for _, sc := range scopes.Scopes {
		if strings.HasPrefix(strings.ToLower(sc.Name), "register") {
			return sc.VariablesReference, nil
		}
	}
	return 0, nil
}

// registerList reads a registers scope: the general-purpose group of a
// grouped one (the first group when none is named so), within the limits.
func (b *Backend) registerList(ctx context.Context, ref int) ([]debugger.Register, error) {
	var body godap.VariablesResponseBody
	if err := b.call(ctx, "variables", godap.VariablesArguments{VariablesReference: ref}, &body); err != nil {
		return nil, err
	}
	vars := body.Variables
	if len(vars) > 0 && vars[0].VariablesReference != 0 && !strings.HasPrefix(vars[0].Value, "0x") {
		group := vars[0]
		for _, v := range vars {
			if strings.Contains(strings.ToLower(v.Name), "general") {
				group = v
				break
			}
		}
		return b.registerList(ctx, group.VariablesReference)
	}
	keep, _ := b.lim.CapChildren(len(vars))
	regs := make([]debugger.Register, 0, keep)
	for _, v := range vars[:keep] {
		val, _ := b.lim.CapValue(v.Value)
		regs = append(regs, debugger.Register{Name: v.Name, Value: val, Role: debugger.RoleOf(v.Name)})
	}
	return debugger.GeneralPurpose(regs), nil
}

// Disassemble implements debugger.Backend.
func (b *Backend) Disassemble(ctx context.Context, req debugger.DisassembleRequest) (debugger.Disassembly, error) {
	if err := req.Check(); err != nil {
		return debugger.Disassembly{}, err
	}
	fr, err := b.frameOf(ctx, req.Frame)
	if err != nil {
		return debugger.Disassembly{}, err
	}
	caps, kind := b.capsAndKind()
	switch {
	case caps.SupportsDisassembleRequest:
		return b.disassemble(ctx, req, fr)
	case kind == KindLLDB:
		out, err := b.lldbCommand(ctx, fr, debugger.LLDBDisassembleCommand(req))
		if err != nil {
			return debugger.Disassembly{}, err
		}
		ins, err := debugger.ParseLLDBDisassembly(out)
		if err != nil {
			return debugger.Disassembly{}, err
		}
		d := debugger.Disassembly{Via: "lldb's disassemble through evaluate (the adapter has no disassemble request)"}
		d.Instructions, d.Cut = debugger.Window(ins, req)
		return d, nil
	}
	return debugger.Disassembly{}, unsupported("disassembling", kind, "disassemble")
}

// disassemble asks the adapter for count instructions: a third of them
// before the frame's pc, or from a function's address on.
func (b *Backend) disassemble(ctx context.Context, req debugger.DisassembleRequest, fr debugger.Frame) (debugger.Disassembly, error) {
	args := godap.DisassembleArguments{MemoryReference: fr.Address, InstructionCount: req.Count, ResolveSymbols: true}
	if req.Function != "" {
		ref, err := b.reference(ctx, req.Function, fr.ID)
		if err != nil {
			return debugger.Disassembly{}, err
		}
		args.MemoryReference = ref
	} else {
		args.InstructionOffset = -req.Count / 3
	}
	if args.MemoryReference == "" {
		return debugger.Disassembly{}, fmt.Errorf("disassembling: the adapter gave frame %d no instruction address", fr.Index)
	}
	var body godap.DisassembleResponseBody
	if err := b.call(ctx, "disassemble", args, &body); err != nil {
		return debugger.Disassembly{}, fmt.Errorf("disassembling at %s: %w", args.MemoryReference, err)
	}
	pc, _ := parseAddress(fr.Address)
	var d debugger.Disassembly
	for _, in := range body.Instructions {
		a, _ := parseAddress(in.Address)
		i := debugger.Instruction{Address: in.Address, Symbol: in.Symbol, Text: in.Instruction, Line: in.Line,
			Current: req.Function == "" && a == pc && pc != 0}
		if in.Location != nil {
			i.File = in.Location.Path
		}
		d.Instructions = append(d.Instructions, i)
	}
	d.Instructions, d.Cut = debugger.Window(d.Instructions, req)
	return d, nil
}
