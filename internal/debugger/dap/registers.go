package dap

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/crashsite"
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
		return debugger.Registers{Registers: regs, Via: "lldb's register read through evaluate (the " + b.adapterLabel() + " adapter gives the frame no Registers scope)"}, err
	}
	return debugger.Registers{}, fmt.Errorf("reading registers: %w: the %s adapter gives the frame no Registers scope, and no command language triage falls back on (debug_command passes the debugger's own)",
		debugger.ErrUnsupported, b.adapterLabel())
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
		d, err := b.disassemble(ctx, req, fr)
		if err == nil || kind != KindLLDB || ctx.Err() != nil {
			return d, err
		}
		// lldb-dap 22's request reads the instructions from the
		// process's memory, which a core lacks (the text is the
		// executable's); lldb's command reads them from the file.
		return b.lldbDisassemble(ctx, req, fr, "the adapter's disassemble request failed: "+err.Error())
	case kind == KindLLDB:
		return b.lldbDisassemble(ctx, req, fr, b.lacks("disassemble request", "supportsDisassembleRequest"))
	}
	return debugger.Disassembly{}, b.unsupported("disassembling", "disassemble request", "supportsDisassembleRequest")
}

// lldbDisassemble disassembles through lldb's command, saying why in Via.
func (b *Backend) lldbDisassemble(ctx context.Context, req debugger.DisassembleRequest, fr debugger.Frame, why string) (debugger.Disassembly, error) {
	out, err := b.lldbCommand(ctx, fr, debugger.LLDBDisassembleCommand(req))
	if err != nil {
		return debugger.Disassembly{}, err
	}
	ins, err := debugger.ParseLLDBDisassembly(out)
	if err != nil {
		return debugger.Disassembly{}, err
	}
	d := debugger.Disassembly{Via: "lldb's disassemble through evaluate (" + why + ")"}
	d.Instructions, d.Cut = debugger.Window(ins, req)
	return d, nil
}

// disassemble asks the adapter for count instructions: a third of them
// before the frame's pc, or from a function's address on (one more, to
// tell whether it goes on).
func (b *Backend) disassemble(ctx context.Context, req debugger.DisassembleRequest, fr debugger.Frame) (debugger.Disassembly, error) {
	args := godap.DisassembleArguments{MemoryReference: fr.Address, InstructionCount: req.Count, ResolveSymbols: true}
	if req.Function != "" {
		ref, err := b.reference(ctx, req.Function, fr.ID)
		if err != nil {
			return debugger.Disassembly{}, err
		}
		args.MemoryReference = ref
		args.InstructionCount++
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
	b.mu.Lock()
	local := b.host == ""
	b.mu.Unlock()
	src := sourceRows{local: local}
	var d debugger.Disassembly
	var sym string
	var symAt uint64
	for _, in := range body.Instructions {
		a, _ := parseAddress(in.Address)
		i := debugger.Instruction{Address: in.Address, Symbol: in.Symbol, Text: in.Instruction, Line: in.Line,
			Current: req.Function == "" && a == pc && pc != 0}
		// The adapter names a symbol at its first instruction only
		// (lldb-dap); the ones after it are that symbol plus an offset.
		switch {
		case strings.Contains(in.Symbol, "+"): // gdb's: with its offset
		case in.Symbol != "":
			sym, symAt = in.Symbol, a
			i.Symbol = sym + "+0"
		case sym != "" && a >= symAt:
			i.Symbol = fmt.Sprintf("%s+%d", sym, a-symAt)
		}
		if in.Location != nil {
			i.File = in.Location.Path
		}
		i.Source = src.row(i.File, i.Line)
		d.Instructions = append(d.Instructions, i)
	}
	if req.Function != "" && len(d.Instructions) > req.Count {
		d.Instructions = d.Instructions[:req.Count]
		d.Cut = fmt.Sprintf("the first %d of the function's instructions shown", req.Count)
		return d, nil
	}
	d.Instructions, d.Cut = debugger.Window(d.Instructions, req)
	return d, nil
}

// sourceRows gives an instruction the source row of its line where the
// line changes, as lldb's own disassembly interleaves them: read from a
// local session's files, none for a remote one (its files are the
// host's).
type sourceRows struct {
	local bool
	file  string
	line  int
}

func (s *sourceRows) row(file string, line int) []string {
	if file == "" || line <= 0 || (file == s.file && line == s.line) {
		return nil
	}
	s.file, s.line = file, line
	if !s.local {
		return nil
	}
	_, lines := crashsite.ReadSource(file, line)
	for _, l := range lines {
		if l.Line == line {
			return []string{strconv.Itoa(line) + "\t" + l.Text}
		}
	}
	return nil
}
