package analysis

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/remote"
)

// TestRequestTarget: only a vmcore with its vmlinux or a core with its
// program is a dump; local paths resolve against the project; extra
// arguments name known engines.
func TestRequestTarget(t *testing.T) {
	for _, r := range []Request{
		{Vmcore: "v", Core: "c"}, {Vmcore: "v"}, {Core: "c"}, {},
		{Core: "c", Program: "p", ExtraArgs: map[string][]string{"windbg": nil}},
	} {
		if _, err := r.Target(); !fault.Is(err, fault.KindUsage) {
			t.Errorf("%+v: %v, want a usage error", r, err)
		}
	}
	tg, err := Request{Core: "core", Program: "prog", ProjectDir: "/p", ExtraArgs: map[string][]string{"gdb": {"-q"}}}.Target()
	if err != nil || tg.Kernel || tg.Core != filepath.Join("/p", "core") || tg.ExtraArgs[postmortem.Engine("gdb")][0] != "-q" {
		t.Errorf("core target %+v, %v", tg, err)
	}
	if tg, _ = (Request{Core: "core", Program: "prog", SSHHost: "h"}).Target(); tg.Core != "core" {
		t.Errorf("a remote dump's paths are its host's: %q", tg.Core)
	}
}

func TestClassify(t *testing.T) {
	for err, kind := range map[error]fault.Kind{
		postmortem.ErrNoSession:                       fault.KindUsage,
		postmortem.ErrUnknownSession:                  fault.KindNotFound,
		remote.ErrConnect:                             fault.KindUnavailable,
		remote.ErrBadHost:                             fault.KindUsage,
		errors.Join(postmortem.ErrEngineMissing, nil): fault.KindUsage,
		errors.New("engine crashed"):                  fault.KindNone,
	} {
		if got := fault.KindOf(Classify(err)); got != kind {
			t.Errorf("Classify(%v) kind %v, want %v", err, got, kind)
		}
	}
}
