package analysis

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/crashsite"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/store"
)

// Report is the first look at a dump: a kernel panic or a process crash,
// in one verdict line and the fields it was read from.
type Report struct {
	Kernel  bool
	Verdict string
	// Kernel dumps.
	Release, Uptime, Panic, Tainted, CPUs, LoadAverage string
	Task                                               *PanicTask
	LogTail                                            []string
	// Process cores.
	Signal, FaultAddress, Function, Location string
	Registers, MissingSymbols                []string
	// Site is the crash site of a local process core (gdb): source,
	// arguments, locals, the fault address beside its pointers.
	Site *crashsite.Site
	// Both: the frames of the panicking task or crashed thread, and the
	// engine commands that failed while building the report.
	Backtrace, Problems []string
	// Output is the report's text, stored.
	Output Stored
}

// Report builds the first look at c.Session's dump from engine commands run
// through the cache, and stores its text. It fails only when no engine could
// read the dump.
func (a *Analyst) Report(ctx context.Context, c Call) (Report, error) {
	s := c.Session
	rb := &reportBuilder{a: a, ctx: ctx, c: c}
	out := Report{Kernel: s.Target.Kernel}
	if s.Target.Kernel {
		rb.kernel(&out)
	} else {
		rb.process(&out)
	}
	out.Problems = rb.problems
	if out.Verdict == "" {
		return Report{}, fmt.Errorf("dump_report: no engine could read %s:\n  %s", s.ID, strings.Join(rb.problems, "\n  "))
	}
	st, err := a.store(ctx)
	if err != nil {
		return Report{}, err
	}
	text := out.text()
	id, err := st.Put(context.WithoutCancel(ctx), store.Meta{Tool: c.Tool, Argv: []string{s.ID}}, text, store.Final{Status: "crash", VerdictLine: out.Verdict})
	if err != nil {
		return Report{}, err
	}
	out.Output = stored(id, a.excerpt(text))
	return out, nil
}

// reportBuilder runs report commands through the cache and collects what
// failed.
type reportBuilder struct {
	a        *Analyst
	ctx      context.Context
	c        Call
	problems []string
}

// do runs one command; an empty string and a recorded problem on failure.
func (rb *reportBuilder) do(e postmortem.Engine, cmd string) string {
	r, err := rb.a.Run(rb.ctx, rb.c, postmortem.Route{Engine: e, Command: cmd, Reason: postmortem.RouteExplicit})
	if err != nil {
		rb.problems = append(rb.problems, fmt.Sprintf("%s %q: %v", e, firstLine(cmd), firstLine(err.Error())))
		return ""
	}
	if r.Error != "" {
		rb.problems = append(rb.problems, fmt.Sprintf("%s %q: %s", e, firstLine(cmd), r.Error))
		return ""
	}
	text, err := rb.a.fullText(rb.ctx, r)
	if err != nil {
		rb.problems = append(rb.problems, fmt.Sprintf("reading %s: %v", r.Output.ID, err))
	}
	return text
}

const (
	maxLogTail = 15
	maxFrames  = 24
)

func (rb *reportBuilder) kernel(out *Report) {
	rb.c.progress(0, 4, "crash: sys (crash takes ~10 s to start)")
	sys := crashFields(rb.do(postmortem.EngineCrash, "sys"))
	if len(sys) == 0 {
		rb.kernelFromDrgn(out)
		return
	}
	out.Release, out.Uptime, out.CPUs, out.LoadAverage = sys["RELEASE"], sys["UPTIME"], sys["CPUS"], sys["LOAD AVERAGE"]
	rb.c.progress(1, 4, "crash: sys -t")
	taint := crashFields(rb.do(postmortem.EngineCrash, "sys -t"))
	out.Tainted = taint["TAINTED_MASK"]
	rb.c.progress(2, 4, "crash: bt")
	out.Task, out.Backtrace = crashBacktrace(rb.panicBacktrace())
	rb.c.progress(3, 4, "crash: log")
	out.LogTail = lastLines(rb.do(postmortem.EngineCrash, "log"), maxLogTail)
	out.Panic = panicMessage(sys["PANIC"], out.LogTail)
	out.Verdict = kernelVerdict(out)
}

// panicBacktrace is bt of the panic task. When the user moved crash's
// context, it goes back to the panic task for bt and returns after.
func (rb *reportBuilder) panicBacktrace() string {
	cur := rb.c.Session.Context(postmortem.EngineCrash)
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

func (rb *reportBuilder) kernelFromDrgn(out *Report) {
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

func kernelVerdict(out *Report) string {
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

func (rb *reportBuilder) process(out *Report) {
	g := postmortem.EngineGDB
	sig := gdbValue(rb.do(g, "p $_siginfo.si_signo"))
	frames := gdbFrames(rb.do(g, "bt"))
	if sig == "" && len(frames) == 0 {
		rb.processFromLLDB(out)
		return
	}
	if n, err := strconv.Atoi(sig); err == nil && n > 0 {
		out.Signal = spawn.SignalName(syscall.Signal(n))
		if n == int(syscall.SIGSEGV) || n == int(syscall.SIGBUS) || n == int(syscall.SIGILL) || n == int(syscall.SIGFPE) {
			out.FaultAddress = gdbAddress(gdbValue(rb.do(g, "p $_siginfo._sifields._sigfault.si_addr")))
		}
	}
	out.Backtrace = truncate(frames, maxFrames)
	out.Function, out.Location = crashSite(frames)
	out.Site = rb.site(frames, out.Signal, out.FaultAddress)
	out.Registers = registerLines(rb.do(g, "info registers"), 18)
	out.MissingSymbols = gdbMissingSymbols(rb.do(g, "info sharedlibrary"))
	out.Verdict = processVerdict(out)
}

// site is the crash site of a local core, from the session's gdb: its
// commands' outputs go through the cache like every other. A core on
// another host is left out: its sources are the host's.
func (rb *reportBuilder) site(frames []string, signal, fault string) *crashsite.Site {
	t := rb.c.Session.Target
	if t.SSHHost != "" {
		return nil
	}
	tr, err := coredump.ParseGDBBacktrace(strings.Join(frames, "\n"))
	if err != nil {
		return nil
	}
	tr.Signal = signal
	var outs []string
	for _, cmd := range coredump.GDBSiteCommands() {
		outs = append(outs, rb.do(postmortem.EngineGDB, cmd))
	}
	var dirs []string
	if t.Program != "" {
		dirs = append(dirs, filepath.Dir(t.Program))
	}
	tr.SetGDBSite(outs, fault, "", dirs...)
	return tr.Site
}

func (rb *reportBuilder) processFromLLDB(out *Report) {
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

func processVerdict(out *Report) string {
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
