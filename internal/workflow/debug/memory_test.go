package debug_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/debug"
)

// memProg builds testdata/mem.c: fill writes "ABCD…" into main's local
// array letters.
func memProg(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mem")
	src, _ := filepath.Abs("testdata/mem.c")
	if out, err := exec.Command("gcc", "-g", "-O0", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return bin
}

// TestMemoryRegistersDisassembly reads memory, registers and disassembly
// from a live session at a breakpoint and from a core, on both backends.
func TestMemoryRegistersDisassembly(t *testing.T) {
	needTool(t, "gcc", "gcc")
	bin := memProg(t)
	dir := t.TempDir()
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{bin, "crash"}, Dir: dir, CoreDumps: true, Timeout: 30 * time.Second})
	if err != nil || !res.CoreDumped {
		t.Fatalf("no core dumped (core_pattern must be \"core\"): %v %+v", err, res)
	}
	core := filepath.Join(dir, "core")
	if _, err := os.Stat(core); err != nil {
		t.Fatalf("core not in the cwd (core_pattern is not \"core\"): %v", err)
	}
	for _, backend := range cBackends {
		t.Run(backend.name+"/live", func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			r := c.Call("debug_attach", map[string]any{"program": bin, "breakpoints": []string{"mem.c:9"}, "backend": backend.name})
			if !strings.HasPrefix(r.FirstLine(), "STOPPED at breakpoint 1 in fill at mem.c:9") {
				t.Fatalf("attach:\n%s", r.Text)
			}
			var st debug.StackOutput
			c.Call("debug_stack", nil).Decode(t, &st)
			if len(st.Frames) < 2 || st.Frames[1].Function != "main" {
				t.Fatalf("stack %+v", st.Frames)
			}
			// main's array, in main's frame; fill's pointer to it, in fill's.
			checkLetters(t, c, map[string]any{"address": "letters", "count": 20, "frame": 1})
			checkLetters(t, c, map[string]any{"address": "buf", "count": 20})
			checkFrameByIndex(t, c, st)
			checkRegisters(t, c, backend.name)
			// Through lldb's command where the adapter has no disassemble
			// request (lldb-vscode-16).
			checkDisassembly(t, c, backend.name == "dap" && !adapterCaps(t, c).SupportsDisassembleRequest, "9", "return sum;")
			checkMemoryErrors(t, c)
		})
		t.Run(backend.name+"/core", func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			r := c.Call("debug_attach", map[string]any{"core": core, "program": bin, "backend": backend.name})
			if !strings.HasPrefix(r.FirstLine(), "CRASHED (SIGSEGV) in main at mem.c:17") {
				t.Fatalf("core:\n%s", r.Text)
			}
			checkLetters(t, c, map[string]any{"address": "letters", "count": 20})
			// A core is stopped for good: expressions evaluate (never "when
			// the process is running"), in the top frame and in another.
			for expr, want := range map[string]string{"sum": "sum = 1490", "letters[1]": "letters[1] = 'B'"} {
				if r := c.Call("debug_evaluate", map[string]any{"expression": expr, "frame": 0}); r.IsError || !strings.HasPrefix(r.FirstLine(), want) {
					t.Errorf("debug_evaluate %s on a core: %s", expr, r.Text)
				}
			}
			if r := c.Call("debug_evaluate", map[string]any{"expression": "argc", "frame": 0}); r.IsError || !strings.HasPrefix(r.FirstLine(), "argc = 2") {
				t.Errorf("debug_evaluate argc on a core: %s", r.Text)
			}
			checkRegisters(t, c, backend.name)
			// A core's text is not in the core: lldb-dap's request cannot
			// read it, lldb's command reads the executable.
			checkDisassembly(t, c, backend.name == "dap", "17", "*p = sum;")
			checkMemoryErrors(t, c)
		})
	}
}

// checkLetters reads the 20 letters fill wrote: two rows, hex and ASCII.
func checkLetters(t *testing.T, c *mcptest.Client, args map[string]any) {
	t.Helper()
	r := c.Call("debug_memory", args)
	var out debug.MemoryOutput
	r.Decode(t, &out)
	if r.IsError || out.Hex != "4142434445464748494a4b4c4d4e4f5051525354" || out.Address == "" {
		t.Fatalf("memory %v: hex %q at %q:\n%s", args, out.Hex, out.Address, r.Text)
	}
	want := []string{
		"MEMORY at " + args["address"].(string) + " = " + out.Address + ", 20 bytes\n",
		": 41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50  ABCDEFGHIJKLMNOP\n",
		": 51 52 53 54                                      QRST\n",
	}
	for _, w := range want {
		if !strings.Contains(r.Text, w) {
			t.Errorf("memory %v lacks %q:\n%s", args, w, r.Text)
		}
	}
}

func checkRegisters(t *testing.T, c *mcptest.Client, backend string) {
	t.Helper()
	r := c.Call("debug_memory", map[string]any{"kind": "registers"})
	var out debug.MemoryOutput
	r.Decode(t, &out)
	roles := map[string]string{}
	for _, reg := range out.Registers {
		if reg.Role != "" {
			roles[reg.Role] = reg.Name
		}
	}
	if r.IsError || roles["pc"] != "rip" || roles["sp"] != "rsp" || roles["fp"] != "rbp" || !strings.Contains(r.Text, "rip = 0x") {
		t.Errorf("registers (roles %v):\n%s", roles, r.Text)
	}
	if len(out.Registers) > 40 {
		t.Errorf("%d registers: want the general-purpose ones:\n%s", len(out.Registers), r.Text)
	}
}

// adapterCaps are the capabilities of the current session's DAP adapter.
func adapterCaps(t *testing.T, c *mcptest.Client) godap.Capabilities {
	t.Helper()
	b, err := c.Svc.Debugger().Backend(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	d, ok := debugger.Unwrap(b).(interface{ Capabilities() godap.Capabilities })
	if !ok {
		t.Fatalf("session backend %T is no DAP backend", b)
	}
	return d.Capabilities()
}

// checkDisassembly: the pc's instruction marked, the source line shown
// before it, and a fallback said.
func checkDisassembly(t *testing.T, c *mcptest.Client, wantVia bool, line, source string) {
	t.Helper()
	r := c.Call("debug_memory", map[string]any{"kind": "disassemble", "count": 12})
	var out debug.MemoryOutput
	r.Decode(t, &out)
	current := -1
	for i, in := range out.Instructions {
		if in.Current {
			current = i
		}
	}
	if r.IsError || len(out.Instructions) != 12 || current < 0 || !strings.Contains(r.Text, "\n  => 0x") {
		t.Fatalf("disassembly: %d instructions, current %d:\n%s", len(out.Instructions), current, r.Text)
	}
	if !strings.Contains(r.Text, "     "+line+" | ") || !strings.Contains(r.Text, source) {
		t.Errorf("disassembly lacks source line %s %q:\n%s", line, source, r.Text)
	}
	if via := strings.Contains(r.Text, "via lldb's disassemble"); via != wantVia {
		t.Errorf("the fallback through evaluate said (%v), want %v:\n%s", via, wantVia, r.Text)
	}
	// "mem`fill+0" from lldb's command, "fill+0" from the adapter's request.
	f := c.Call("debug_memory", map[string]any{"kind": "disassemble", "address": "fill", "count": 4})
	if f.IsError || !strings.Contains(f.Text, "DISASSEMBLY of fill (4 instructions;") || !strings.Contains(f.Text, "fill+0>") {
		t.Errorf("disassembly of fill:\n%s", f.Text)
	}
}

func checkMemoryErrors(t *testing.T, c *mcptest.Client) {
	t.Helper()
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"address": "0x0", "count": 16}, "0x0"},
		{map[string]any{"address": "letters", "count": 5000}, "count 5000 out of range (1 to 4096 bytes)"},
		{map[string]any{}, "give an address or an expression"},
		{map[string]any{"kind": "stack"}, `kind "stack": want memory, registers or disassemble`},
	} {
		r := c.Call("debug_memory", tt.args)
		if !r.IsError || !strings.Contains(r.Text, tt.want) {
			t.Errorf("debug_memory %v: want an error with %q:\n%s", tt.args, tt.want, r.Text)
		}
	}
}

// checkFrameByIndex: a frame is named by the #N debug_stack prints (also
// by its id, as the structured stack gives it); a frame there is not is
// refused, naming the frames there are.
func checkFrameByIndex(t *testing.T, c *mcptest.Client, st debug.StackOutput) {
	t.Helper()
	frames := []int{1}
	if id := st.Frames[1].ID; id > 64 { // an adapter's own id (lldb-dap's), not an index
		frames = append(frames, id)
	}
	for _, frame := range frames {
		r := c.Call("debug_variables", map[string]any{"frame": frame})
		if r.IsError || !strings.Contains(r.Text, "letters") || strings.Contains(r.Text, "buf =") {
			t.Errorf("debug_variables frame %d (main's): want main's letters, not fill's buf:\n%s", frame, r.Text)
		}
		r = c.Call("debug_evaluate", map[string]any{"expression": "letters[1]", "frame": frame})
		if r.IsError || !strings.Contains(r.Text, "'B'") {
			t.Errorf("debug_evaluate letters[1] in frame %d: %s", frame, r.Text)
		}
	}
	r := c.Call("debug_variables", map[string]any{"frame": 7})
	if !r.IsError || !strings.Contains(r.Text, "no frame #7: the stopped thread has") {
		t.Errorf("debug_variables frame 7 (no such frame): %s", r.Text)
	}
}
