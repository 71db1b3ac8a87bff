package debugger

import (
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// The lldb commands for memory, registers and disassembly, and readers of
// what lldb prints for them: the lldb command-line backend runs them, and
// the DAP backend over lldb-dap falls back to them (through evaluate) where
// the adapter lacks the protocol's own requests.

// LLDBMemoryCommand reads req.Count bytes at req.Address, an address or an
// expression, which lldb evaluates (an array's elements, a pointer's
// target). --force lifts lldb's 1024-byte bound, ours is lower.
func LLDBMemoryCommand(req MemoryRequest) string {
	return fmt.Sprintf("memory read --force --format Y --size 1 --count %d -- %s", req.Count, LLDBQuote(req.Address))
}

// LLDBByValue reports lldb refusing an expression's value as an address
// (an array, a struct): LLDBMemoryCommand is then given &(expression),
// the memory the value is in.
func LLDBByValue(out string) bool {
	return strings.Contains(out, "can't be converted to an address")
}

// LLDBAddressOf is the expression for the memory expr's value is in.
func LLDBAddressOf(expr string) string { return "&(" + expr + ")" }

// LLDBRegistersCommand reads the selected frame's general-purpose registers.
const LLDBRegistersCommand = "register read"

// LLDBDisassembleCommand disassembles the selected frame's function, or
// req.Function, with source lines interleaved. The whole function is read:
// Window then keeps the instructions around the pc.
func LLDBDisassembleCommand(req DisassembleRequest) string {
	if req.Function != "" {
		return "disassemble --mixed --name " + LLDBQuote(req.Function)
	}
	return "disassemble --mixed --frame"
}

// LLDBQuote quotes one word for lldb's command line.
func LLDBQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`")
	return `"` + r.Replace(s) + `"`
}

var (
	lldbMemRowRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^(0x[0-9a-fA-F]+): ((?:[0-9a-fA-F]{2} ?){1,16})`)
	})
	lldbErrRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^error: (.*)$`) })
	lldbRegRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(\w+) = (0x[0-9a-fA-F]+)\s*(.*)$`) })
	lldbInsnRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(->)?\s+(0x[0-9a-fA-F]+) <([^>]*)>:\s+(.*?)\s*$`) })
	lldbSrcRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(->|\*\*|  ) (\d+)\s*\t(.*)$`) })
	lldbSymbolRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^(\\S+`\\S+):$") })
)

// LLDBError is the first "error:" line of lldb's output, or "".
func LLDBError(out string) string {
	if m := lldbErrRE().FindStringSubmatch(out); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// ParseLLDBMemory reads `memory read --format Y` rows. lldb refuses the
// whole read when any of it is unmapped, saying where: that is
// ErrUnreadable.
func ParseLLDBMemory(out, addr string) (Memory, error) {
	if e := LLDBError(out); e != "" {
		if strings.Contains(e, "memory read failed") || strings.Contains(e, "does not contain") {
			return Memory{}, fmt.Errorf("%w at %s: %s", ErrUnreadable, addr, e)
		}
		return Memory{}, fmt.Errorf("reading memory at %s: %s", addr, e)
	}
	var m Memory
	for i, row := range lldbMemRowRE().FindAllStringSubmatch(out, -1) {
		if i == 0 {
			a, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(row[1]), "0x"), 16, 64)
			if err != nil {
				return Memory{}, fmt.Errorf("reading memory at %s: lldb's address %s: %v", addr, row[1], err)
			}
			m.Address = a
		}
		b, err := hex.DecodeString(strings.ReplaceAll(row[2], " ", ""))
		if err != nil {
			return Memory{}, fmt.Errorf("reading memory at %s: lldb's row %q: %v", addr, row[0], err)
		}
		m.Bytes = append(m.Bytes, b...)
	}
	if len(m.Bytes) == 0 {
		return Memory{}, fmt.Errorf("reading memory at %s: lldb printed no bytes: %s", addr, strings.TrimSpace(out))
	}
	return m, nil
}

// ParseLLDBRegisters reads `register read`: "rip = 0x… prog`main + 153 at
// prog.c:17:6" rows, the symbol kept beside the value.
func ParseLLDBRegisters(out string) ([]Register, error) {
	if e := LLDBError(out); e != "" {
		return nil, fmt.Errorf("reading registers: %s", e)
	}
	var regs []Register
	for _, line := range strings.Split(out, "\n") {
		m := lldbRegRE().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		v := m[2]
		if m[3] != "" {
			v += "  " + m[3]
		}
		regs = append(regs, Register{Name: m[1], Value: v, Role: RoleOf(m[1])})
	}
	if len(regs) == 0 {
		return nil, fmt.Errorf("reading registers: lldb printed none: %s", strings.TrimSpace(out))
	}
	return regs, nil
}

// ParseLLDBDisassembly reads `disassemble --mixed`: a symbol header
// ("prog`main:"), blocks of source rows ("** 17  \t*p = total;", the
// marked one the line of the instructions after them, the others context),
// and instructions, the pc's marked "->".
func ParseLLDBDisassembly(out string) ([]Instruction, error) {
	if e := LLDBError(out); e != "" {
		return nil, fmt.Errorf("disassembling: %s", e)
	}
	var ins []Instruction
	var src []string
	symbol, line := "", 0
	for _, l := range strings.Split(out, "\n") {
		if m := lldbSymbolRE().FindStringSubmatch(l); m != nil {
			symbol = m[1]
			continue
		}
		if m := lldbSrcRE().FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[2])
			if m[1] != "  " {
				line = n
			}
			src = append(src, fmt.Sprintf("%d\t%s", n, m[3]))
			continue
		}
		m := lldbInsnRE().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		sym := symbol
		if off := m[3]; strings.HasPrefix(off, "+") || strings.HasPrefix(off, "-") {
			sym += off
		} else if off != "" {
			sym = off
		}
		ins = append(ins, Instruction{Address: m[2], Symbol: sym, Text: m[4], Line: line, Source: src, Current: m[1] == "->"})
		src = nil
	}
	if len(ins) == 0 {
		return nil, fmt.Errorf("disassembling: lldb printed no instructions: %s", strings.TrimSpace(out))
	}
	return ins, nil
}
