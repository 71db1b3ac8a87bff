package dump

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/proc"
	"github.com/triage-dev/triage/internal/store"
)

type reportParams struct {
	sessionParam
	Force bool `json:"force,omitempty" jsonschema:"bypass the cache"`
}

// ReportOutput is the first look at a dump.
type ReportOutput struct {
	SessionID string `json:"session_id" jsonschema:"the session"`
	Kernel    bool   `json:"kernel" jsonschema:"a kernel dump"`
	Verdict   string `json:"verdict" jsonschema:"one-line summary"`
	// Kernel dumps.
	Release     string     `json:"release,omitempty" jsonschema:"kernel release"`
	Uptime      string     `json:"uptime,omitempty" jsonschema:"uptime at the crash"`
	Panic       string     `json:"panic,omitempty" jsonschema:"panic message"`
	Tainted     string     `json:"tainted,omitempty" jsonschema:"taint mask and flags"`
	CPUs        string     `json:"cpus,omitempty" jsonschema:"CPU count"`
	LoadAverage string     `json:"load_average,omitempty" jsonschema:"load average"`
	Task        *PanicTask `json:"task,omitempty" jsonschema:"the panicking task"`
	LogTail     []string   `json:"log_tail,omitempty" jsonschema:"last kernel log lines"`
	// Process cores.
	Signal         string   `json:"signal,omitempty" jsonschema:"signal that killed the process"`
	FaultAddress   string   `json:"fault_address,omitempty" jsonschema:"faulting address (SIGSEGV, SIGBUS)"`
	Function       string   `json:"function,omitempty" jsonschema:"crashing function"`
	Location       string   `json:"location,omitempty" jsonschema:"file:line of the crash"`
	Registers      []string `json:"registers,omitempty" jsonschema:"general registers of the crashed thread"`
	MissingSymbols []string `json:"missing_symbols,omitempty" jsonschema:"shared libraries without debug symbols"`
	// Both.
	Backtrace []string `json:"backtrace,omitempty" jsonschema:"frames of the panicking task or crashed thread"`
	Problems  []string `json:"problems,omitempty" jsonschema:"engine commands that failed while building the report"`
	catalog.Captured
}

func (h *handler) report(ctx context.Context, c *catalog.Call, in reportParams) (catalog.Result[ReportOutput], error) {
	s, err := h.session(in.SessionID)
	if err != nil {
		return catalog.Result[ReportOutput]{}, err
	}
	rb := &reportBuilder{h: h, ctx: ctx, c: c, s: s, force: in.Force}
	out := ReportOutput{SessionID: s.ID, Kernel: s.Target.Kernel}
	if s.Target.Kernel {
		rb.kernel(&out)
	} else {
		rb.process(&out)
	}
	out.Problems = rb.problems
	if out.Verdict == "" {
		return catalog.Result[ReportOutput]{}, fmt.Errorf("dump_report: no engine could read %s:\n  %s", s.ID, strings.Join(rb.problems, "\n  "))
	}
	text := renderReport(out)
	st, err := h.svc.Store(ctx)
	if err != nil {
		return catalog.Result[ReportOutput]{}, err
	}
	id, err := st.Put(context.WithoutCancel(ctx), store.Meta{Tool: c.Tool, Argv: []string{s.ID}}, text, store.Final{Status: "crash", VerdictLine: out.Verdict})
	if err != nil {
		return catalog.Result[ReportOutput]{}, err
	}
	ex := h.buildExcerpt(text)
	out.Captured = catalog.NewCaptured(id, ex.TotalLines, ex.Truncated)
	var b strings.Builder
	b.WriteString(out.Verdict + "\n")
	body := ex.Text
	if !ex.Truncated {
		// The verdict is the first line already.
		_, body, _ = strings.Cut(body, "\n")
		b.WriteString(body)
		if out.Captured.Next == "" {
			fmt.Fprintf(&b, "report stored as %s\n", id)
		}
	} else {
		catalog.WriteExcerpt(&b, out.Captured, body)
	}
	// A dump records a crash: the CLI exits non-zero, like run on a crasher.
	return catalog.Result[ReportOutput]{Text: b.String(), Output: out, Outcome: catalog.Failed}, nil
}

// reportBuilder runs report commands through the cache and collects what
// failed.
type reportBuilder struct {
	h        *handler
	ctx      context.Context
	c        *catalog.Call
	s        *postmortem.Session
	force    bool
	problems []string
}

// do runs one command; an empty string and a recorded problem on failure.
func (rb *reportBuilder) do(e postmortem.Engine, cmd string) string {
	r, err := rb.h.run(rb.ctx, rb.c.Tool, rb.s, postmortem.Route{Engine: e, Command: cmd, Reason: postmortem.RouteExplicit}, rb.force, 0)
	if err != nil {
		rb.problems = append(rb.problems, fmt.Sprintf("%s %q: %v", e, firstLine(cmd), firstLine(err.Error())))
		return ""
	}
	if r.out.Error != "" {
		rb.problems = append(rb.problems, fmt.Sprintf("%s %q: %s", e, firstLine(cmd), r.out.Error))
		return ""
	}
	text, err := rb.h.fullText(rb.ctx, r)
	if err != nil {
		rb.problems = append(rb.problems, fmt.Sprintf("reading %s: %v", r.out.OutputID, err))
	}
	return text
}

const (
	maxLogTail = 15
	maxFrames  = 24
)

func (rb *reportBuilder) kernel(out *ReportOutput) {
	rb.c.Progress(rb.ctx, 0, 4, "crash: sys (crash takes ~10 s to start)")
	sys := crashFields(rb.do(postmortem.EngineCrash, "sys"))
	if len(sys) == 0 {
		rb.kernelFromDrgn(out)
		return
	}
	out.Release, out.Uptime, out.CPUs, out.LoadAverage = sys["RELEASE"], sys["UPTIME"], sys["CPUS"], sys["LOAD AVERAGE"]
	rb.c.Progress(rb.ctx, 1, 4, "crash: sys -t")
	taint := crashFields(rb.do(postmortem.EngineCrash, "sys -t"))
	out.Tainted = taint["TAINTED_MASK"]
	rb.c.Progress(rb.ctx, 2, 4, "crash: bt")
	out.Task, out.Backtrace = crashBacktrace(rb.panicBacktrace())
	rb.c.Progress(rb.ctx, 3, 4, "crash: log")
	out.LogTail = lastLines(rb.do(postmortem.EngineCrash, "log"), maxLogTail)
	out.Panic = panicMessage(sys["PANIC"], out.LogTail)
	out.Verdict = kernelVerdict(out)
}

// panicBacktrace is bt of the panic task. When the user moved crash's
// context, it goes back to the panic task for bt and returns after.
func (rb *reportBuilder) panicBacktrace() string {
	cur := rb.s.Context(postmortem.EngineCrash)
	if !cur.Set {
		return rb.do(postmortem.EngineCrash, "bt")
	}
	rb.do(postmortem.EngineCrash, "set -p")
	bt := rb.do(postmortem.EngineCrash, "bt")
	rb.do(postmortem.EngineCrash, "set "+cur.Task)
	return bt
}

// drgnKernelReport prints what the report needs when crash cannot start.
const drgnKernelReport = `from drgn.helpers.linux.printk import get_dmesg
print('RELEASE:', prog['init_uts_ns'].name.release.string_().decode())
__t = prog.crashed_thread()
print('PID: %d  TASK: %x  CPU: %d  COMMAND: "%s"' % (__t.tid, __t.object.value_(), __t.object.cpu.value_() if hasattr(__t.object, 'cpu') else 0, __t.object.comm.string_().decode()))
for __i, __f in enumerate(__t.stack_trace()):
    print(' #%d [0] %s at %x' % (__i, __f.name or '??', __f.pc))
print('--- log ---')
print(get_dmesg(prog).decode(errors='replace')[-4000:])
`

func (rb *reportBuilder) kernelFromDrgn(out *ReportOutput) {
	text := rb.do(postmortem.EngineDrgn, drgnKernelReport)
	if text == "" {
		return
	}
	head, log, _ := strings.Cut(text, "--- log ---")
	out.Release = crashFields(head)["RELEASE"]
	out.Task, out.Backtrace = crashBacktrace(head)
	out.LogTail = lastLines(log, maxLogTail)
	out.Panic = panicMessage("", out.LogTail)
	out.Verdict = kernelVerdict(out)
}

func kernelVerdict(out *ReportOutput) string {
	v := "KERNEL PANIC"
	if out.Panic != "" {
		v += ": " + out.Panic
	} else {
		v = "KERNEL DUMP (no panic message found)"
	}
	if t := out.Task; t != nil {
		v += fmt.Sprintf(" — %s (pid %d) on CPU %d", t.Command, t.PID, t.CPU)
	}
	if len(out.Backtrace) > 0 {
		if f := firstInterestingKernelFrame(out.Backtrace); f != "" {
			v += " in " + f
		}
	}
	if out.Release != "" {
		v += ", kernel " + out.Release
	}
	return v
}

// firstInterestingKernelFrame skips the panic machinery to the function
// that called it.
func firstInterestingKernelFrame(frames []string) string {
	for _, f := range frames {
		switch fn := frameFunction(f); fn {
		case "", "panic", "__crash_kexec", "crash_kexec", "machine_kexec", "__die", "die", "oops_end", "vpanic", "__show_regs", "show_regs":
		default:
			return fn
		}
	}
	return ""
}

func (rb *reportBuilder) process(out *ReportOutput) {
	g := postmortem.EngineGDB
	sig := gdbValue(rb.do(g, "p $_siginfo.si_signo"))
	frames := gdbFrames(rb.do(g, "bt"))
	if sig == "" && len(frames) == 0 {
		rb.processFromLLDB(out)
		return
	}
	if n, err := strconv.Atoi(sig); err == nil && n > 0 {
		out.Signal = proc.SignalName(syscall.Signal(n))
		if n == int(syscall.SIGSEGV) || n == int(syscall.SIGBUS) || n == int(syscall.SIGILL) || n == int(syscall.SIGFPE) {
			out.FaultAddress = gdbAddress(gdbValue(rb.do(g, "p $_siginfo._sifields._sigfault.si_addr")))
		}
	}
	out.Backtrace = truncate(frames, maxFrames)
	out.Function, out.Location = crashSite(frames)
	out.Registers = registerLines(rb.do(g, "info registers"), 18)
	out.MissingSymbols = gdbMissingSymbols(rb.do(g, "info sharedlibrary"))
	out.Verdict = processVerdict(out)
}

func (rb *reportBuilder) processFromLLDB(out *ReportOutput) {
	l := postmortem.EngineLLDB
	bt := rb.do(l, "bt")
	if bt == "" {
		return
	}
	if i := strings.Index(bt, "stop reason = signal "); i >= 0 {
		out.Signal = strings.Fields(bt[i+len("stop reason = signal "):])[0]
		out.Signal = strings.TrimRight(out.Signal, ":,")
	}
	out.FaultAddress = strings.TrimSuffix(afterWord(bt, "fault address: "), ")")
	var frames []string
	for _, line := range strings.Split(bt, "\n") {
		if t := strings.TrimLeft(line, " *"); strings.HasPrefix(t, "frame #") {
			frames = append(frames, t)
		}
	}
	out.Backtrace = truncate(frames, maxFrames)
	if tr, err := coredump.ParseLLDBBacktrace(bt); err == nil {
		out.Function, out.Location = siteOf(tr)
	}
	out.Registers = registerLines(rb.do(l, "register read"), 18)
	out.Verdict = processVerdict(out)
}

func afterWord(s, word string) string {
	i := strings.Index(s, word)
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+len(word):])
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func processVerdict(out *ReportOutput) string {
	v := "CRASHED"
	if out.Signal != "" {
		v += " (" + out.Signal + ")"
	}
	if out.Function != "" {
		v += " in " + out.Function
	}
	if out.Location != "" {
		v += " at " + out.Location
	}
	if out.FaultAddress != "" {
		v += ", fault address " + out.FaultAddress
	}
	return v
}

func truncate(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("… %d more frames", len(s)-n))
	}
	return s
}

func renderReport(o ReportOutput) string {
	var b strings.Builder
	b.WriteString(o.Verdict + "\n")
	field := func(name, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\n", name, v)
		}
	}
	list := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s:\n", title)
		for _, l := range lines {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	if o.Kernel {
		field("release", o.Release)
		field("uptime", o.Uptime)
		field("panic", o.Panic)
		if t := o.Task; t != nil {
			fmt.Fprintf(&b, "panicking task: %s, pid %d, task %s, CPU %d\n", t.Command, t.PID, t.Task, t.CPU)
		}
		field("tainted", o.Tainted)
		if o.CPUs != "" || o.LoadAverage != "" {
			fmt.Fprintf(&b, "cpus: %s; load average: %s\n", o.CPUs, o.LoadAverage)
		}
		list("backtrace", o.Backtrace)
		list("kernel log (last lines)", o.LogTail)
	} else {
		field("signal", o.Signal)
		field("fault address", o.FaultAddress)
		list("backtrace (crashed thread)", o.Backtrace)
		list("registers", o.Registers)
		list("libraries without symbols", o.MissingSymbols)
	}
	list("problems", o.Problems)
	return b.String()
}
