package lldbcli

import (
	"context"

	"github.com/triage-dev/triage/internal/debugger"
)

// ReadMemory implements debugger.Backend with lldb's `memory read`, whose
// address may be an expression evaluated in the frame.
func (b *Backend) ReadMemory(ctx context.Context, req debugger.MemoryRequest) (debugger.Memory, error) {
	if err := req.Check(); err != nil {
		return debugger.Memory{}, err
	}
	out, err := b.inFrame(ctx, req.Frame, debugger.LLDBMemoryCommand(req))
	if err == nil && debugger.LLDBByValue(out) {
		byAddr := req
		byAddr.Address = debugger.LLDBAddressOf(req.Address)
		out, err = b.inFrame(ctx, req.Frame, debugger.LLDBMemoryCommand(byAddr))
	}
	if err != nil {
		return debugger.Memory{}, err
	}
	return debugger.ParseLLDBMemory(out, req.Address)
}

// Registers implements debugger.Backend with lldb's `register read`: the
// general-purpose set, as unwound for the frame.
func (b *Backend) Registers(ctx context.Context, frame int) (debugger.Registers, error) {
	out, err := b.inFrame(ctx, frame, debugger.LLDBRegistersCommand)
	if err != nil {
		return debugger.Registers{}, err
	}
	regs, err := debugger.ParseLLDBRegisters(out)
	return debugger.Registers{Registers: regs}, err
}

// Disassemble implements debugger.Backend with lldb's `disassemble --mixed`.
func (b *Backend) Disassemble(ctx context.Context, req debugger.DisassembleRequest) (debugger.Disassembly, error) {
	if err := req.Check(); err != nil {
		return debugger.Disassembly{}, err
	}
	out, err := b.inFrame(ctx, req.Frame, debugger.LLDBDisassembleCommand(req))
	if err != nil {
		return debugger.Disassembly{}, err
	}
	ins, err := debugger.ParseLLDBDisassembly(out)
	if err != nil {
		return debugger.Disassembly{}, err
	}
	d := debugger.Disassembly{}
	d.Instructions, d.Cut = debugger.Window(ins, req)
	return d, nil
}

// inFrame runs cmd with frame (ID = index+1; 0 = top) selected, on a
// stopped target; lldb's own errors are left in the output for the
// readers, which word them.
func (b *Backend) inFrame(ctx context.Context, frame int, cmd string) (string, error) {
	b.op.Lock()
	defer b.op.Unlock()
	if err := b.usable(ctx, true); err != nil {
		return "", err
	}
	if err := b.selectFrame(ctx, 0, frame); err != nil {
		return "", err
	}
	out, err := b.run(ctx, cmd, nil)
	if err == nil && runningErr().MatchString(out) {
		err = debugger.ErrRunning
	}
	return out, err
}
