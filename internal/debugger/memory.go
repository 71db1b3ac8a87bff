package debugger

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/fault"
)

// Bounds of the machine-level reads: bytes of memory, instructions of a
// disassembly.
const (
	DefaultMemoryBytes  = 64
	MaxMemoryBytes      = 4096
	DefaultInstructions = 24
	MaxInstructions     = 256
)

// ErrUnreadable: the memory asked for is not mapped in the target (or not
// in the core).
var ErrUnreadable = errors.New("memory is unreadable")

// MemoryRequest asks for Count bytes at Address: an address, or an
// expression whose value is one (a pointer's target, an array's elements).
type MemoryRequest struct {
	Address string
	Count   int // 0: DefaultMemoryBytes
	Frame   int // the frame the expression is evaluated in (0: top)
}

// Check fills the default count and refuses what is out of bounds.
func (r *MemoryRequest) Check() error {
	r.Address = strings.TrimSpace(r.Address)
	switch {
	case r.Address == "":
		return errors.New("memory: give an address or an expression whose value is one")
	case strings.ContainsAny(r.Address, "\r\n"):
		return errors.New("memory: the address must be one line")
	case r.Count == 0:
		r.Count = DefaultMemoryBytes
	case r.Count < 0 || r.Count > MaxMemoryBytes:
		return fmt.Errorf("memory: count %d out of range (1 to %d bytes)", r.Count, MaxMemoryBytes)
	}
	return nil
}

// Memory is what a read found: Bytes from Address on, then Unreadable
// bytes that could not be read.
type Memory struct {
	Address    uint64
	Bytes      []byte
	Unreadable int
	// Via says how, when not by the backend's own request (a fallback to
	// the debugger's command language).
	Via string
}

// Register is one register of a frame; Role names the pc, sp and fp.
type Register struct {
	Name  string
	Value string
	Role  string // "pc", "sp", "fp" or ""
}

// Registers are a frame's general-purpose registers.
type Registers struct {
	Registers []Register
	Via       string
}

// registerRoles are the pc, sp and fp by name on x86-64, i386, AArch64 and
// ARM.
var registerRoles = map[string]string{
	"rip": "pc", "eip": "pc", "pc": "pc",
	"rsp": "sp", "esp": "sp", "sp": "sp",
	"rbp": "fp", "ebp": "fp", "fp": "fp", "x29": "fp",
}

// RoleOf names a register's role: pc, sp, fp or "".
func RoleOf(name string) string { return registerRoles[strings.ToLower(strings.TrimSpace(name))] }

// DisassembleRequest asks for Count instructions around the pc of Frame,
// or from the start of Function.
type DisassembleRequest struct {
	Frame    int
	Function string
	Count    int // 0: DefaultInstructions
}

// Check fills the default count and refuses what is out of bounds.
func (r *DisassembleRequest) Check() error {
	r.Function = strings.TrimSpace(r.Function)
	switch {
	case strings.ContainsAny(r.Function, " \t\r\n\"`"):
		return fmt.Errorf("disassemble: %q is not a function name", r.Function)
	case r.Count == 0:
		r.Count = DefaultInstructions
	case r.Count < 0 || r.Count > MaxInstructions:
		return fmt.Errorf("disassemble: count %d out of range (1 to %d instructions)", r.Count, MaxInstructions)
	}
	return nil
}

// Instruction is one machine instruction, with the source lines the
// debugger printed before it (where it gives them).
type Instruction struct {
	Address string // 0x…, as the debugger wrote it
	Symbol  string // function+offset, where known
	Text    string
	File    string
	Line    int
	Source  []string // "LINE  text" rows the debugger interleaved before it
	Current bool     // the frame's pc
}

// GeneralPurpose drops the narrower views of the widest registers that
// some debuggers list with them (lldb-dap's eax, ax, al beside rax): the
// registers whose hex value is narrower than the widest.
func GeneralPurpose(regs []Register) []Register {
	width := func(v string) int {
		h, ok := strings.CutPrefix(strings.Fields(v + " ")[0], "0x")
		if !ok {
			return -1
		}
		return len(h)
	}
	widest := 0
	for _, r := range regs {
		widest = max(widest, width(r.Value))
	}
	out := regs[:0:0]
	for _, r := range regs {
		if w := width(r.Value); w < 0 || w == widest {
			out = append(out, r)
		}
	}
	return out
}

// Disassembly is a bounded run of instructions.
type Disassembly struct {
	Instructions []Instruction
	// Cut says what the count left out ("24 of 80 instructions shown").
	Cut string
	Via string
}

// Window keeps count instructions around the current one (a third before
// it) for a disassembly of a frame, or the first count for a function's,
// and says what it cut.
func Window(ins []Instruction, req DisassembleRequest) ([]Instruction, string) {
	count := req.Count
	if len(ins) <= count {
		return ins, ""
	}
	start := 0
	for i, in := range ins {
		if in.Current && req.Function == "" {
			start = max(0, min(i-count/3, len(ins)-count))
			break
		}
	}
	return ins[start : start+count], fmt.Sprintf("%d of %d instructions shown", count, len(ins))
}

// ReadMemory checks req (out of bounds is the caller's mistake) and reads
// it through b.
func ReadMemory(ctx context.Context, b Backend, req MemoryRequest) (Memory, error) {
	if err := req.Check(); err != nil {
		return Memory{}, fault.Usage(err)
	}
	return b.ReadMemory(ctx, req)
}

// Disassemble checks req (filling its defaults) and disassembles it
// through b.
func Disassemble(ctx context.Context, b Backend, req *DisassembleRequest) (Disassembly, error) {
	if err := req.Check(); err != nil {
		return Disassembly{}, fault.Usage(err)
	}
	return b.Disassemble(ctx, *req)
}
