// Package dump is the `dump` workflow: post-mortem analysis of kernel dumps
// (vmcore + vmlinux, through crash and drgn) and process cores (core +
// program, through gdb, lldb and drgn). A session stays open between calls
// (internal/postmortem.Manager); commands are routed to an engine, and their
// outputs are stored and cached per dump, engine, command and context.
package dump

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/argpath"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/postmortem/analysis"
	"github.com/triage-dev/triage/internal/services"
)

// Workflow returns the dump workflow bound to svc.
func Workflow(svc *services.Set) *catalog.Workflow {
	h := newHandler(svc)
	ro := catalog.Annotations{ReadOnly: true, Idempotent: true}
	world := catalog.Annotations{OpenWorld: true}
	return &catalog.Workflow{
		ID:          "dump",
		Title:       "Post-mortem dumps",
		Description: "Open kernel dumps (crash, drgn) and process cores (gdb, lldb, drgn); first-look report, routed and cached engine commands.",
		Tools: []*catalog.Tool{
			catalog.New("dump_open", "Open a kernel dump (vmcore + vmlinux) or a process core (core + program); the same dump reuses its session.",
				world, catalog.WithDefaults(svc.Defaults, defaults.Requirements{}, h.open)).
				Unlisted("", "project_dir"), // filled from session defaults; where relative paths resolve
			catalog.New("dump_report", "First look at an open dump: panic or signal, crashing backtrace, kernel log tail or registers.", world, h.report),
			catalog.New("dump_command", "Run crash, drgn, gdb or lldb commands, one a line, on an open dump (cached per engine context).", world, h.command),
			catalog.New("dump_scripts", "List the drgn scripts of dump.script_dirs, or run one on an open dump.", world, h.scripts),
			catalog.New("dump_list", "List open dump sessions and the state of their engines.", ro, h.list),
			catalog.New("dump_close", "Release a dump session; the last release stops its engines.", catalog.Annotations{Destructive: true, Idempotent: true}, h.close),
		},
	}
}

type handler struct {
	svc     *services.Set
	analyst *analysis.Analyst
}

func newHandler(svc *services.Set) *handler {
	// One answer shows at most half the response budget of output.
	budget := func() int { return svc.Config.BudgetBytes() / 2 }
	return &handler{svc: svc, analyst: analysis.New(svc.Store, budget, svc.Log)}
}

// sessionParam is embedded by every tool that works on a session.
type sessionParam struct {
	SessionID string `json:"session_id,omitempty"`
}

// call is what an operation on the session id needs: timeoutS checked
// first, then the session looked up.
func (h *handler) call(ctx context.Context, c *catalog.Call, id string, force bool, timeoutS duration.Seconds) (analysis.Call, error) {
	timeout, err := timeoutS.Timeout(0, duration.CommandMax)
	if err != nil {
		return analysis.Call{}, err
	}
	s, err := h.svc.Dumps().Get(id)
	if err != nil {
		return analysis.Call{}, describe(err)
	}
	progress := func(done, total float64, message string) { c.Progress(ctx, done, total, message) }
	return analysis.Call{Tool: c.Tool, Session: s, Force: force, Timeout: timeout, Progress: progress}, nil
}

// describe turns the domain's sentinel errors into what the caller should do.
func describe(err error) error {
	switch {
	case errors.Is(err, postmortem.ErrNoSession):
		return fault.Usagef("no dump is open: dump_open a vmcore (with vmlinux) or a core (with program)")
	case errors.Is(err, postmortem.ErrUnknownSession):
		return fault.NotFoundf("%w; dump_list shows the open ones", err)
	case errors.Is(err, postmortem.ErrBadTarget), errors.Is(err, postmortem.ErrUnknownPrefix),
		errors.Is(err, postmortem.ErrUnknownEngine), errors.Is(err, postmortem.ErrEngineConflict),
		errors.Is(err, postmortem.ErrWrongEngine), errors.Is(err, postmortem.ErrEmptyCommand),
		errors.Is(err, postmortem.ErrShellEscape), errors.Is(err, postmortem.ErrEngineMissing),
		errors.Is(err, postmortem.ErrBlockCommand):
		return fault.Usage(err)
	}
	return err
}

type openParams struct {
	Vmcore  string `json:"vmcore,omitempty"`
	Vmlinux string `json:"vmlinux,omitempty" jsonschema:"with debug info, matching vmcore"`
	Core    string `json:"core,omitempty"`
	Program string `json:"program,omitempty"`
	// ProjectDir is where relative paths of a local dump are (default:
	// triage's working directory).
	ProjectDir string              `json:"project_dir,omitempty"`
	SSHHost    string              `json:"ssh_host,omitempty" jsonschema:"run the engines there; paths are its own"`
	ExtraArgs  map[string][]string `json:"extra_args,omitempty" jsonschema:"e.g. {\"crash\": [\"--minimal\"]}"`
}

// SessionOutput describes a dump session.
type SessionOutput struct {
	SessionID string                  `json:"session_id" jsonschema:"the session"`
	Kernel    bool                    `json:"kernel" jsonschema:"a kernel dump (else a process core)"`
	Dump      string                  `json:"dump" jsonschema:"the vmcore or core"`
	Symbols   string                  `json:"symbols" jsonschema:"the vmlinux or program"`
	SSHHost   string                  `json:"ssh_host,omitempty" jsonschema:"remote host running the engines"`
	Info      *postmortem.DumpInfo    `json:"info,omitempty" jsonschema:"format, kernel release, build ID (local dumps)"`
	Refs      int                     `json:"refs" jsonschema:"opens not yet closed"`
	Reused    bool                    `json:"reused,omitempty" jsonschema:"the dump was already open"`
	Default   string                  `json:"default_engine" jsonschema:"engine for commands without a prefix"`
	Engines   []postmortem.EngineInfo `json:"engines" jsonschema:"engines and their state"`
}

func sessionOutput(s *postmortem.Session) SessionOutput {
	t := s.Target
	out := SessionOutput{SessionID: s.ID, Kernel: t.Kernel, Dump: t.Core, Symbols: t.Program, SSHHost: t.SSHHost,
		Info: s.Dump, Refs: s.Refs(), Engines: s.EngineInfos()}
	if t.Kernel {
		out.Dump, out.Symbols, out.Default = t.Vmcore, t.Vmlinux, string(postmortem.EngineCrash)
	} else {
		out.Default = string(postmortem.EngineGDB)
		if s.Dump != nil {
			out.Default = string(s.Dump.DefaultEngine())
		}
	}
	return out
}

func (h *handler) open(ctx context.Context, c *catalog.Call, in openParams) (catalog.Result[SessionOutput], error) {
	t, err := openTarget(in)
	if err != nil {
		return catalog.Result[SessionOutput]{}, err
	}
	o, err := analysis.Open(ctx, h.svc.Dumps(), t, in.ProjectDir)
	if err != nil {
		return catalog.Result[SessionOutput]{}, describe(err)
	}
	out := sessionOutput(o.Session)
	out.Reused = o.Reused
	return catalog.Result[SessionOutput]{Text: openText(o, out), Output: out}, nil
}

// openTarget checks that the arguments name one dump and what reads it.
func openTarget(in openParams) (postmortem.Target, error) {
	if in.SSHHost == "" {
		// Engines and their sessions outlive this call's directory: give
		// them absolute paths, resolved where the user's program ran.
		for _, p := range []*string{&in.Vmcore, &in.Vmlinux, &in.Core, &in.Program} {
			*p = argpath.Resolve(*p, "", in.ProjectDir)
		}
	}
	t := postmortem.Target{Kernel: in.Vmcore != "", Vmcore: in.Vmcore, Vmlinux: in.Vmlinux, Core: in.Core, Program: in.Program, SSHHost: in.SSHHost}
	switch {
	case in.Vmcore != "" && in.Core != "":
		return t, fault.Usagef("give vmcore (+ vmlinux) or core (+ program), not both")
	case in.Vmcore != "" && in.Vmlinux == "":
		return t, fault.Usagef("vmcore needs vmlinux: the kernel image with debug info (e.g. /usr/lib/debug/boot/vmlinux-RELEASE); set it once with session_set_defaults")
	case in.Vmcore == "" && in.Core != "" && in.Program == "":
		return t, fault.Usagef("core needs program: the executable that dumped it")
	case in.Vmcore == "" && in.Core == "":
		return t, fault.Usagef("give vmcore + vmlinux (kernel dump) or core + program (process core)")
	}
	var err error
	t.ExtraArgs, err = extraArgs(in.ExtraArgs)
	return t, err
}

func extraArgs(in map[string][]string) (map[postmortem.Engine][]string, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := map[postmortem.Engine][]string{}
	for name, args := range in {
		e, err := postmortem.ParseEngine(name)
		if err != nil {
			return nil, fault.Usagef("extra_args: %w", err)
		}
		out[e] = args
	}
	return out, nil
}

func openText(o analysis.Opened, out SessionOutput) string {
	var b strings.Builder
	verb := "OPENED"
	if o.Reused {
		verb = "REUSED"
	}
	fmt.Fprintf(&b, "%s %s: %s\n", verb, out.SessionID, describeDump(out))
	if o.Crash != "" {
		// In the text only: tools/list's budget has no room for more
		// output fields, and dump_report has the structured backtrace.
		fmt.Fprintf(&b, "%s\nbacktrace:\n  %s\n", o.Crash, strings.Join(o.Frames, "\n  "))
	}
	fmt.Fprintf(&b, "engines: %s (started on first use; %s by default)\n", engineNames(o.Session.Engines()), out.Default)
	if o.Reused {
		fmt.Fprintf(&b, "references: %d (each dump_close releases one)\n", out.Refs)
	}
	fmt.Fprintf(&b, "next: %s\n", catalog.NextCall("dump_report", map[string]any{"session_id": out.SessionID}))
	return b.String()
}

func describeDump(o SessionOutput) string {
	var parts []string
	if o.Kernel {
		parts = append(parts, "kernel dump "+o.Dump)
	} else {
		parts = append(parts, "core "+o.Dump+" of "+o.Symbols)
	}
	if i := o.Info; i != nil {
		kind := string(i.Kind)
		if i.Producer != "" {
			kind += " by " + i.Producer
		}
		parts = append(parts, kind)
		if i.OSRelease != "" {
			parts = append(parts, "kernel "+i.OSRelease)
		}
		if i.Arch != "" {
			parts = append(parts, i.Arch)
		}
	}
	if o.SSHHost != "" {
		parts = append(parts, "on "+o.SSHHost)
	}
	return strings.Join(parts, ", ")
}

func engineNames(es []postmortem.Engine) string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}

// ListOutput lists the open sessions.
type ListOutput struct {
	Sessions []SessionOutput `json:"sessions" jsonschema:"open dump sessions, oldest first"`
}

func (h *handler) list(ctx context.Context, c *catalog.Call, in struct{}) (catalog.Result[ListOutput], error) {
	var out ListOutput
	var b strings.Builder
	sessions := h.svc.Dumps().List()
	fmt.Fprintf(&b, "%d dump session(s) open\n", len(sessions))
	for _, s := range sessions {
		o := sessionOutput(s)
		out.Sessions = append(out.Sessions, o)
		fmt.Fprintf(&b, "%s: %s; refs %d\n", o.SessionID, describeDump(o), o.Refs)
		for _, e := range o.Engines {
			fmt.Fprintf(&b, "  %s: %s", e.Engine, e.State)
			if e.Pid != 0 {
				fmt.Fprintf(&b, " (pid %d)", e.Pid)
			}
			if k := e.Context.Key(); k != "" {
				fmt.Fprintf(&b, ", context %s", k)
			}
			if e.Error != "" {
				fmt.Fprintf(&b, ": %s", summary(e.Error))
			}
			b.WriteByte('\n')
		}
	}
	return catalog.Result[ListOutput]{Text: b.String(), Output: out}, nil
}

type closeParams struct {
	sessionParam
}

// CloseOutput reports a released session.
type CloseOutput struct {
	SessionID string `json:"session_id" jsonschema:"the session"`
	Remaining int    `json:"remaining" jsonschema:"references left; 0 means closed and its engines stopped"`
}

func (h *handler) close(ctx context.Context, c *catalog.Call, in closeParams) (catalog.Result[CloseOutput], error) {
	s, left, err := h.svc.Dumps().Close(in.SessionID)
	if err != nil && s == nil {
		return catalog.Result[CloseOutput]{}, describe(err)
	}
	if err != nil {
		h.svc.Log.Warn("closing dump session", "session", s.ID, "err", err)
	}
	out := CloseOutput{SessionID: s.ID, Remaining: left}
	text := fmt.Sprintf("CLOSED %s: engines stopped\n", s.ID)
	if left > 0 {
		text = fmt.Sprintf("RELEASED %s: %d reference(s) left, engines still running\n", s.ID, left)
	}
	return catalog.Result[CloseOutput]{Text: text, Output: out}, nil
}

// summary shortens a multi-line error to its first and last lines (an
// engine's start failure ends with its own message).
func summary(s string) string {
	s = strings.TrimSpace(s)
	first := firstLine(s)
	if first == s {
		return s
	}
	return first + " … " + s[strings.LastIndexByte(s, '\n')+1:]
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
