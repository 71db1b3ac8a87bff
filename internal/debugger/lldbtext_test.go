package debugger

import (
	"errors"
	"strings"
	"testing"
)

// lldb-16's own output, from a core of the workflow's testdata/mem.c.
const (
	lldbMemOut = "0x7ffe553748ac: 0a 00 00 00 02 00 00 00 00 00 00 00 4a 52 14 6d  ............JR.m\n" +
		"0x7ffe553748bc: 51 52 53 54                                      QRST\n"
	lldbDisOut = "\n** 16  \t\tint *p = NULL;\n\n    0x5598987f71fd <+138>: movq   $0x0, -0x10(%rbp)\n\n" +
		"** 17  \t\t*p = total; /* line 17: SIGSEGV */\n   18  \t}\n\n" +
		"    0x5598987f7205 <+146>: movq   -0x10(%rbp), %rax\n->  0x5598987f720c <+153>: movl   %edx, (%rax)\n"
)

func TestParseLLDBMemory(t *testing.T) {
	m, err := ParseLLDBMemory(lldbMemOut, "&total")
	if err != nil || m.Address != 0x7ffe553748ac || string(m.Bytes[12:14]) != "JR" || len(m.Bytes) != 20 {
		t.Fatalf("%+v %v", m, err)
	}
	_, err = ParseLLDBMemory("error: core file does not contain 0x0\n", "p")
	if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "at p: core file does not contain 0x0") {
		t.Errorf("unreadable: %v", err)
	}
}

func TestParseLLDBDisassemblyAndWindow(t *testing.T) {
	ins, err := ParseLLDBDisassembly("prog`main:\n" + lldbDisOut)
	if err != nil || len(ins) != 3 || !ins[2].Current || ins[2].Line != 17 || ins[1].Line != 17 || ins[0].Line != 16 ||
		ins[1].Symbol != "prog`main+146" || len(ins[1].Source) != 2 || ins[1].Source[0] != "17\t*p = total; /* line 17: SIGSEGV */" {
		t.Fatalf("%+v %v", ins, err)
	}
	if w, cut := Window(ins, DisassembleRequest{Count: 2}); len(w) != 2 || !w[1].Current || cut != "2 of 3 instructions shown" {
		t.Errorf("around the pc: %+v %q", w, cut)
	}
	if w, _ := Window(ins, DisassembleRequest{Count: 2, Function: "main"}); w[0].Address != "0x5598987f71fd" {
		t.Errorf("a function's start: %+v", w)
	}
}

func TestGeneralPurpose(t *testing.T) {
	regs := GeneralPurpose([]Register{{Name: "rax", Value: "0x0000000000000014"}, {Name: "eax", Value: "0x00000014"},
		{Name: "rip", Value: "0x000055555555518d  m`fill + 84"}, {Name: "al", Value: "0x14"}})
	if len(regs) != 2 || regs[1].Name != "rip" {
		t.Errorf("%+v", regs)
	}
}
