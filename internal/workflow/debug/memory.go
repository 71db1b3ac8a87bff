package debug

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/fault"
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
	SessionID    string        `json:"session_id" jsonschema:"the session"`
	Address      string        `json:"address,omitempty" jsonschema:"of the first byte"`
	Hex          string        `json:"hex,omitempty" jsonschema:"the bytes read"`
	Registers    []Register    `json:"registers,omitempty" jsonschema:"general-purpose"`
	Instructions []Instruction `json:"instructions,omitempty" jsonschema:"in address order"`
	// Note says what was left out (unreadable bytes, instructions beyond
	// the count) and the debugger command used where the adapter lacks
	// the protocol's request.
	Note string `json:"note,omitempty" jsonschema:"what was cut; the debugger command used where the adapter lacks the request"`
}

// Register is one register; role names the pc, sp and fp.
type Register struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Role  string `json:"role,omitempty" jsonschema:"pc, sp or fp"`
}

// Instruction is one machine instruction and the source line it is of.
type Instruction struct {
	Address string   `json:"address"`
	Symbol  string   `json:"symbol,omitempty"`
	Text    string   `json:"text"`
	File    string   `json:"file,omitempty"`
	Line    int      `json:"line,omitempty"`
	Source  []string `json:"source,omitempty" jsonschema:"source rows the debugger printed before it"`
	Current bool     `json:"current,omitempty" jsonschema:"the frame's pc"`
}

func (h *handler) memory(ctx context.Context, c *catalog.Call, in memoryParams) (catalog.Result[MemoryOutput], error) {
	kind := strings.ToLower(strings.TrimSpace(in.Kind))
	switch {
	case kind == "":
		kind = "memory"
	case kind != "memory" && kind != "registers" && kind != "disassemble":
		return catalog.Result[MemoryOutput]{}, fault.Usagef("kind %q: want memory, registers or disassemble", in.Kind)
	}
	b, id, err := h.backend(ctx, in.SessionID)
	if err != nil {
		return catalog.Result[MemoryOutput]{}, err
	}
	out := MemoryOutput{SessionID: id}
	var sb strings.Builder
	var via string
	switch kind {
	case "memory":
		via, err = h.readMemory(ctx, b, in, &out, &sb)
	case "registers":
		via, err = readRegisters(ctx, b, in, &out, &sb)
	default:
		via, err = h.disassemble(ctx, b, in, &out, &sb)
	}
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

// readMemory reads, shows and returns memory, and says how it was read.
func (h *handler) readMemory(ctx context.Context, b debugger.Backend, in memoryParams, out *MemoryOutput, sb *strings.Builder) (string, error) {
	req := debugger.MemoryRequest{Address: in.Address, Count: in.Count, Frame: in.Frame}
	if err := req.Check(); err != nil {
		return "", fault.Usage(err)
	}
	m, err := b.ReadMemory(ctx, req)
	if err != nil {
		return "", err
	}
	out.Address, out.Hex = fmt.Sprintf("%#x", m.Address), fmt.Sprintf("%x", m.Bytes)
	fmt.Fprintf(sb, "MEMORY at %s = %#x, %d bytes\n", in.Address, m.Address, len(m.Bytes))
	budget := h.svc.Config.BudgetBytes()
	for off := 0; off < len(m.Bytes); off += 16 {
		if sb.Len() > budget {
			fmt.Fprintf(sb, "… %d more bytes in the structured output (hex)\n", len(m.Bytes)-off)
			break
		}
		sb.WriteString(hexRow(m.Address+uint64(off), m.Bytes[off:min(off+16, len(m.Bytes))]))
	}
	if m.Unreadable > 0 {
		out.Note = fmt.Sprintf("%d bytes after %#x are unreadable", m.Unreadable, m.Address+uint64(len(m.Bytes)))
		sb.WriteString(out.Note + "\n")
	}
	return m.Via, nil
}

// hexRow is one row of up to 16 bytes: the address, the bytes in hex, and
// them as ASCII (a dot for what does not print).
func hexRow(addr uint64, row []byte) string {
	var hx, asc strings.Builder
	for i := range 16 {
		switch {
		case i >= len(row):
			hx.WriteString("   ")
			continue
		default:
			fmt.Fprintf(&hx, "%02x ", row[i])
		}
		if c := row[i]; c >= 0x20 && c < 0x7f {
			asc.WriteByte(c)
		} else {
			asc.WriteByte('.')
		}
	}
	return fmt.Sprintf("%#016x: %s %s\n", addr, hx.String(), asc.String())
}

func readRegisters(ctx context.Context, b debugger.Backend, in memoryParams, out *MemoryOutput, sb *strings.Builder) (string, error) {
	regs, err := b.Registers(ctx, in.Frame)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(sb, "REGISTERS of %s (%d, general-purpose)\n", frameName(in.Frame), len(regs.Registers))
	for _, r := range regs.Registers {
		out.Registers = append(out.Registers, Register(r))
		role := ""
		if r.Role != "" {
			role = "  [" + r.Role + "]"
		}
		fmt.Fprintf(sb, "  %6s = %s%s\n", r.Name, r.Value, role)
	}
	return regs.Via, nil
}

func frameName(frame int) string {
	if frame <= 0 {
		return "the top frame"
	}
	return fmt.Sprintf("frame id %d", frame)
}

// disassemble disassembles around the frame's pc, or the function named
// by address.
func (h *handler) disassemble(ctx context.Context, b debugger.Backend, in memoryParams, out *MemoryOutput, sb *strings.Builder) (string, error) {
	req := debugger.DisassembleRequest{Frame: in.Frame, Function: in.Address, Count: in.Count}
	if err := req.Check(); err != nil {
		return "", fault.Usage(err)
	}
	d, err := b.Disassemble(ctx, req)
	if err != nil {
		return "", err
	}
	out.Note = d.Cut
	what := "around the pc of " + frameName(in.Frame)
	if req.Function != "" {
		what = "of " + req.Function
	}
	fmt.Fprintf(sb, "DISASSEMBLY %s (%d instructions", what, len(d.Instructions))
	if d.Cut != "" {
		fmt.Fprintf(sb, "; %s, count gives more", d.Cut)
	}
	sb.WriteString(")\n")
	writeInstructions(sb, d.Instructions, h.svc.Config.BudgetBytes())
	for _, i := range d.Instructions {
		out.Instructions = append(out.Instructions, Instruction(i))
	}
	return d.Via, nil
}

// writeInstructions writes the instructions, "=>" at the pc, each after the
// source rows the debugger gave (or, from a DAP adapter, its file:line
// where the line changes).
func writeInstructions(sb *strings.Builder, ins []debugger.Instruction, budget int) {
	file, line := "", 0
	for n, i := range ins {
		if sb.Len() > budget {
			fmt.Fprintf(sb, "  … %d more in the structured output\n", len(ins)-n)
			return
		}
		for _, s := range i.Source {
			n, text, _ := strings.Cut(s, "\t")
			fmt.Fprintf(sb, "  %5s | %s\n", n, strings.TrimRight(text, " \t"))
		}
		if len(i.Source) == 0 && i.File != "" && i.Line != 0 && (i.Line != line || i.File != file) {
			fmt.Fprintf(sb, "  ; %s:%d\n", shortPath(i.File), i.Line)
		}
		file, line = i.File, i.Line
		mark := "  "
		if i.Current {
			mark = "=>"
		}
		fmt.Fprintf(sb, "  %s %s <%s>: %s\n", mark, i.Address, i.Symbol, i.Text)
	}
}

func shortPath(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
