package analysis

import (
	"errors"

	"github.com/triage-dev/triage/internal/argpath"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/interactive"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/remote"
)

// Request names a dump as dump_open's arguments do.
type Request struct {
	Vmcore, Vmlinux, Core, Program string
	// ProjectDir is where a local dump's relative paths are.
	ProjectDir string
	SSHHost    string
	ExtraArgs  map[string][]string // by engine name
}

// Target is the dump r names, with what reads it: a vmcore with its
// vmlinux or a core with its program, anything else refused. A local
// dump's paths are made absolute where the user's program ran: engines
// and their sessions outlive the call's directory.
func (r Request) Target() (postmortem.Target, error) {
	if r.SSHHost == "" {
		for _, p := range []*string{&r.Vmcore, &r.Vmlinux, &r.Core, &r.Program} {
			*p = argpath.Resolve(*p, "", r.ProjectDir)
		}
	}
	t := postmortem.Target{Kernel: r.Vmcore != "", Vmcore: r.Vmcore, Vmlinux: r.Vmlinux, Core: r.Core, Program: r.Program, SSHHost: r.SSHHost}
	if err := r.checkPair(); err != nil {
		return t, err
	}
	var err error
	t.ExtraArgs, err = extraArgs(r.ExtraArgs)
	return t, err
}

func (r Request) checkPair() error {
	switch {
	case r.Vmcore != "" && r.Core != "":
		return fault.Usagef("give vmcore (+ vmlinux) or core (+ program), not both")
	case r.Vmcore != "" && r.Vmlinux == "":
		return fault.Usagef("vmcore needs vmlinux: the kernel image with debug info (e.g. /usr/lib/debug/boot/vmlinux-RELEASE); set it once with session_set_defaults")
	case r.Vmcore == "" && r.Core != "" && r.Program == "":
		return fault.Usagef("core needs program: the executable that dumped it")
	case r.Vmcore == "" && r.Core == "":
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

// usageErrors are the errors that mean the caller's arguments cannot be
// used as given.
var usageErrors = []error{postmortem.ErrBadTarget, postmortem.ErrUnknownPrefix, postmortem.ErrUnknownEngine,
	postmortem.ErrEngineConflict, postmortem.ErrWrongEngine, postmortem.ErrEmptyCommand,
	interactive.ErrReadsInput, postmortem.ErrEngineMissing, remote.ErrBadHost}

// Classify gives the dump sessions' errors their kind (internal/fault),
// saying what the caller should do.
func Classify(err error) error {
	switch {
	case errors.Is(err, postmortem.ErrNoSession):
		return fault.Usagef("no dump is open: dump_open a vmcore (with vmlinux) or a core (with program)")
	case errors.Is(err, postmortem.ErrUnknownSession):
		return fault.NotFoundf("%w; dump_list shows the open ones", err)
	case errors.Is(err, remote.ErrConnect), errors.Is(err, remote.ErrNoSSH):
		return fault.Unavailable(err)
	}
	for _, u := range usageErrors {
		if errors.Is(err, u) {
			return fault.Usage(err)
		}
	}
	return err
}
