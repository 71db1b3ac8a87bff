package dap

import (
	"context"
	"encoding/binary"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/toolpath"
)

// Both lldb adapters: lldb-dap-22 (the default, found first) and
// lldb-vscode-16 (what many machines have), each by its path.

type lldbAdapter struct {
	name, path string
	newer      bool // lldb-dap: data breakpoints, readMemory, disassemble
}

func lldbAdapters(t *testing.T) []lldbAdapter {
	t.Helper()
	var out []lldbAdapter
	for _, n := range toolpath.Names("lldb-dap") {
		if p, err := exec.LookPath(n); err == nil {
			out = append(out, lldbAdapter{name: n, path: p, newer: true})
			break
		}
	}
	if p, err := toolpath.LLDBVSCode.Find(); err == nil {
		out = append(out, lldbAdapter{name: "lldb-vscode", path: p})
	}
	if len(out) < 2 {
		t.Skipf("want both lldb-dap-N and lldb-vscode-N (scripts/install-deps.sh installs lldb-22's beside lldb-16's), have %v", out)
	}
	return out
}

func newLLDBBackend(t *testing.T, ad lldbAdapter, cfg debugger.Config) *Backend {
	t.Helper()
	cfg.Dir = t.TempDir()
	b := New(KindLLDB, cfg)
	b.adapter = ad.path
	t.Cleanup(func() { b.Dispose() })
	return b
}

// launchAtMain starts watch.c under ad, stopped at main.
func launchAtMain(t *testing.T, ad lldbAdapter, cfg debugger.Config) *Backend {
	t.Helper()
	prog := build(t, "watch", "gcc", "-g", "-O0", "watch.c")
	b := newLLDBBackend(t, ad, cfg)
	st, err := b.Launch(context.Background(), debugger.LaunchSpec{Program: prog, Breakpoints: []debugger.BreakpointSpec{{Function: "main"}}})
	if err != nil {
		t.Fatal(err)
	}
	mustStop(t, b, st, debugger.StopBreakpoint)
	return b
}

// Memory and disassembly go through the protocol's own readMemory and
// disassemble requests under lldb-dap (no Via), through lldb's commands by
// evaluate under lldb-vscode-16 (which lacks both, said in Via); the same
// bytes and the same current instruction either way.
func TestMemoryAndDisassemblyBothAdapters(t *testing.T) {
	for _, ad := range lldbAdapters(t) {
		t.Run(ad.name, func(t *testing.T) {
			ctx := context.Background()
			b := launchAtMain(t, ad, debugger.Config{})
			caps := b.Capabilities()
			if caps.SupportsReadMemoryRequest != ad.newer || caps.SupportsDisassembleRequest != ad.newer || caps.SupportsDataBreakpoints != ad.newer {
				t.Errorf("%s capabilities: readMemory %t disassemble %t dataBreakpoints %t", ad.name,
					caps.SupportsReadMemoryRequest, caps.SupportsDisassembleRequest, caps.SupportsDataBreakpoints)
			}
			addr, err := b.Evaluate(ctx, "&counter", 0)
			if err != nil {
				t.Fatal(err)
			}
			m, err := b.ReadMemory(ctx, debugger.MemoryRequest{Address: "&counter", Count: 4})
			if err != nil || len(m.Bytes) != 4 || binary.LittleEndian.Uint32(m.Bytes) != 0 || !strings.Contains(strings.ToLower(addr.Value), strconv.FormatUint(m.Address, 16)) {
				t.Fatalf("memory at &counter (%s) = %+v, %v", addr.Value, m, err)
			}
			if (m.Via == "") != ad.newer || (!ad.newer && !strings.Contains(m.Via, "no supportsReadMemoryRequest in its capabilities")) {
				t.Errorf("memory via %q under %s: want the capability named where it is missing", m.Via, ad.name)
			}
			d, err := b.Disassemble(ctx, debugger.DisassembleRequest{Count: 9})
			if err != nil || len(d.Instructions) == 0 || (d.Via == "") != ad.newer {
				t.Fatalf("disassembly = %+v, %v", d, err)
			}
			if !ad.newer && !strings.Contains(d.Via, "the "+filepath.Base(ad.path)+" adapter has no disassemble request: no supportsDisassembleRequest in its capabilities") {
				t.Errorf("disassembly via %q under %s: want the adapter and its missing capability named", d.Via, ad.name)
			}
			current := 0
			for _, in := range d.Instructions {
				if in.Current {
					current++
					if !strings.Contains(in.Symbol+in.Text, "main") && in.Line == 0 && in.File == "" {
						t.Errorf("current instruction %+v has no symbol nor line", in)
					}
				}
			}
			if current != 1 {
				t.Errorf("%d current instructions in %+v", current, d.Instructions)
			}
		})
	}
}

// lldb-vscode-16 aborts on dataBreakpointInfo: a watch under it never
// sends one; its Via says its capabilities have none.
func TestWatchViaNamesTheAdapterCapability(t *testing.T) {
	for _, ad := range lldbAdapters(t) {
		t.Run(ad.name, func(t *testing.T) {
			b := launchAtMain(t, ad, debugger.Config{})
			bp, err := b.AddBreakpoint(context.Background(), debugger.BreakpointSpec{Watch: "counter"})
			if err != nil {
				t.Fatal(err)
			}
			soft, _ := debugger.SoftWatchNeeded()
			var want string
			switch {
			case soft && ad.newer:
				want = "data breakpoints are not used: they would be set and never fire"
			case soft:
				want = "watching by single-stepping"
			case ad.newer:
				want = "the adapter's data breakpoint"
			default:
				want = "no supportsDataBreakpoints in its capabilities"
			}
			if !strings.Contains(bp.Via, want) {
				t.Errorf("via %q, want %q", bp.Via, want)
			}
			if st := b.State(); st.Status != debugger.StatusStopped {
				t.Errorf("adapter after the watch: %+v", st)
			}
		})
	}
}

// The data breakpoint requests against the real lldb-dap: dataBreakpointInfo
// gives counter's 4 bytes, setDataBreakpoints sets it (verified), a
// non-lvalue is refused, and removing it sends the set without it. The
// stop lldb-dap sends where hardware delivers ("data breakpoint", whose
// hitBreakpointIds are watchpoint ids, here colliding with the main
// breakpoint's id) is recorded as the watch's stop, not main's. On a host
// that delivers, TestWatchStopsAtWritingLineBothLLDBAdapters drives the
// real one.
func TestDataBreakpointRequestsLLDBDAP(t *testing.T) {
	ad := lldbAdapters(t)[0]
	ctx := context.Background()
	b := launchAtMain(t, ad, debugger.Config{})
	bad := &breakpoint{Breakpoint: debugger.Breakpoint{Spec: debugger.BreakpointSpec{Watch: "1+2"}}}
	b.bpMu.Lock()
	errBad := b.setDataBreakpoint(ctx, bad, debugger.AccessWrite)
	bp := &breakpoint{Breakpoint: debugger.Breakpoint{Kind: "watch", Spec: debugger.BreakpointSpec{Watch: "counter"}, Verified: true}}
	err := b.setDataBreakpoint(ctx, bp, debugger.AccessWrite)
	b.bpMu.Unlock()
	if errBad == nil {
		t.Errorf("a watch on 1+2 was set: %+v", bad)
	}
	if err != nil || bp.dataID == "" || bp.dataAdapterID == 0 || bp.Value != "0" || !strings.Contains(bp.Via, "4 bytes") {
		t.Fatalf("data breakpoint on counter: %+v (id %q, adapter id %d), %v", bp.Breakpoint, bp.dataID, bp.dataAdapterID, err)
	}
	b.mu.Lock()
	b.nextBP++
	bp.ID = b.nextBP
	b.bps[bp.ID] = bp
	b.stopped(Event{Name: "stopped", Body: []byte(`{"reason":"data breakpoint","threadId":` + strconv.Itoa(b.thread) +
		`,"hitBreakpointIds":[` + strconv.Itoa(bp.dataAdapterID) + `]}`)})
	stop := *b.state.LastStop
	b.mu.Unlock()
	if len(stop.BreakpointIDs) != 1 || stop.BreakpointIDs[0] != bp.ID || stop.Watch == nil || stop.Watch.ID != bp.ID || stop.Watch.Expr != "counter" {
		t.Errorf("data breakpoint stop = %+v (watch %+v), want watch %d only", stop, stop.Watch, bp.ID)
	}
	if err := b.RemoveBreakpoint(ctx, bp.ID); err != nil {
		t.Fatal(err)
	}
	if bps := b.Breakpoints(); len(bps) != 1 {
		t.Errorf("after removing the watch: %+v", bps)
	}
}
