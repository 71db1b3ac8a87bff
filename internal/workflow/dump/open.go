package dump

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/argpath"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/postmortem/analysis"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

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
	SessionID string         `json:"session_id" jsonschema:"the session"`
	Kernel    bool           `json:"kernel" jsonschema:"a kernel dump (else a process core)"`
	Dump      string         `json:"dump" jsonschema:"the vmcore or core"`
	Symbols   string         `json:"symbols" jsonschema:"the vmlinux or program"`
	SSHHost   string         `json:"ssh_host,omitempty" jsonschema:"remote host running the engines"`
	Info      *wire.DumpInfo `json:"info,omitempty" jsonschema:"format, kernel release, build ID (local dumps)"`
	Refs      int            `json:"refs" jsonschema:"opens not yet closed"`
	Reused    bool           `json:"reused,omitempty" jsonschema:"the dump was already open"`
	Default   string         `json:"default_engine" jsonschema:"engine for commands without a prefix"`
	Engines   []wire.Engine  `json:"engines" jsonschema:"engines and their state"`
}

func sessionOutput(s *postmortem.Session) SessionOutput {
	t := s.Target
	out := SessionOutput{SessionID: s.ID, Kernel: t.Kernel, Dump: t.Core, Symbols: t.Program, SSHHost: t.SSHHost,
		Info: wire.DumpInfoOf(s.Dump), Refs: s.Refs(), Default: string(s.Router.DefaultEngine()), Engines: wire.EnginesOf(s.EngineInfos())}
	if t.Kernel {
		out.Dump, out.Symbols = t.Vmcore, t.Vmlinux
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
	return openResult(o), nil
}

// openTarget is the dump the arguments name, with what reads it.
func openTarget(in openParams) (postmortem.Target, error) {
	if in.SSHHost == "" {
		resolvePaths(&in)
	}
	t := postmortem.Target{Kernel: in.Vmcore != "", Vmcore: in.Vmcore, Vmlinux: in.Vmlinux, Core: in.Core, Program: in.Program, SSHHost: in.SSHHost}
	if err := checkPair(in); err != nil {
		return t, err
	}
	var err error
	t.ExtraArgs, err = extraArgs(in.ExtraArgs)
	return t, err
}

// resolvePaths makes a local dump's paths absolute, resolved where the
// user's program ran: engines and their sessions outlive this call's
// directory.
func resolvePaths(in *openParams) {
	for _, p := range []*string{&in.Vmcore, &in.Vmlinux, &in.Core, &in.Program} {
		*p = argpath.Resolve(*p, "", in.ProjectDir)
	}
}

// checkPair refuses anything but a vmcore with its vmlinux or a core with
// its program.
func checkPair(in openParams) error {
	switch {
	case in.Vmcore != "" && in.Core != "":
		return fault.Usagef("give vmcore (+ vmlinux) or core (+ program), not both")
	case in.Vmcore != "" && in.Vmlinux == "":
		return fault.Usagef("vmcore needs vmlinux: the kernel image with debug info (e.g. /usr/lib/debug/boot/vmlinux-RELEASE); set it once with session_set_defaults")
	case in.Vmcore == "" && in.Core != "" && in.Program == "":
		return fault.Usagef("core needs program: the executable that dumped it")
	case in.Vmcore == "" && in.Core == "":
		return fault.Usagef("give vmcore + vmlinux (kernel dump) or core + program (process core)")
	}
	return nil
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

func openResult(o analysis.Opened) catalog.Result[SessionOutput] {
	out := sessionOutput(o.Session)
	out.Reused = o.Reused
	var b strings.Builder
	b.WriteString(openHead(o))
	fmt.Fprintf(&b, "engines: %s (started on first use; %s by default)\n", engineNames(o.Session.Engines()), out.Default)
	if o.Reused {
		fmt.Fprintf(&b, "references: %d (each dump_close releases one)\n", out.Refs)
	}
	fmt.Fprintf(&b, "next: %s\n", catalog.NextCall("dump_report", map[string]any{"session_id": out.SessionID}))
	return catalog.Result[SessionOutput]{Text: b.String(), Output: out}
}

// openHead says what was opened and, for a local process core, where it
// crashed.
func openHead(o analysis.Opened) string {
	verb := "OPENED"
	if o.Reused {
		verb = "REUSED"
	}
	head := fmt.Sprintf("%s %s: %s\n", verb, o.Session.ID, analysis.Describe(o.Session))
	if o.Crash != "" {
		// In the text only: tools/list's budget has no room for more
		// output fields, and dump_report has the structured backtrace.
		head += fmt.Sprintf("%s\nbacktrace:\n  %s\n", o.Crash, strings.Join(o.Frames, "\n  "))
	}
	return head
}

func engineNames(es []postmortem.Engine) string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}
