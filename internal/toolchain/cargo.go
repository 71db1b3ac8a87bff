package toolchain

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/testreport"
)

// cargoProfileRE is what cargo accepts as a profile name.
var cargoProfileRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

func cargoBuild(p *planInput) ([]Step, error) {
	if len(p.o.Run) > 0 || len(p.o.Skip) > 0 {
		return nil, p.errorf("run/skip", "select tests with the test tool, not build")
	}
	flags, err := cargoFlags(p)
	if err != nil {
		return nil, err
	}
	argv := append([]string{"cargo", "build"}, flags...)
	argv = append(argv, p.o.Args...)
	return []Step{p.step(StepBuild, argv...)}, nil
}

// cargoTest runs every test even after a failure (--no-fail-fast), and asks
// for backtraces of panics unless the caller set RUST_BACKTRACE.
func cargoTest(p *planInput) ([]Step, error) {
	flags, err := cargoFlags(p)
	if err != nil {
		return nil, err
	}
	cargoArgs, harnessArgs := splitAtDashDash(p.o.Args)
	argv := append([]string{"cargo", "test", "--no-fail-fast"}, flags...)
	argv = append(argv, cargoArgs...)
	// libtest takes any number of name filters (a test runs if it matches
	// one) and repeated --skip; cargo's own TESTNAME takes only one.
	var filter []string
	filter = append(filter, p.o.Run...)
	for _, s := range p.o.Skip {
		filter = append(filter, "--skip="+s)
	}
	if harness := slices.Concat(filter, harnessArgs); len(harness) > 0 {
		argv = append(append(argv, "--"), harness...)
	}
	s := p.step(StepTest, argv...)
	if _, set := s.Env["RUST_BACKTRACE"]; !set {
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env["RUST_BACKTRACE"] = "1"
	}
	s.Format = testreport.FormatCargo
	s.Filter = strings.Join(filter, " ")
	if p.o.Coverage {
		list := append([]string{"cargo", "test", "--no-run", "--message-format=json"}, flags...)
		cargoCoverage(p, &s, append(list, cargoArgs...))
		s.Coverage.Rerun = slices.Concat([]string{"cargo", "test"}, flags, cargoArgs)
	}
	return []Step{s}, nil
}

func cargoFlags(p *planInput) ([]string, error) {
	var flags []string
	switch c := p.o.Configuration; {
	case c == "" || strings.EqualFold(c, "debug") || strings.EqualFold(c, "dev"):
	case strings.EqualFold(c, "release"):
		flags = append(flags, "--release")
	case cargoProfileRE().MatchString(c):
		flags = append(flags, "--profile="+c)
	default:
		return nil, p.errorf("configuration", "%q is not a cargo profile name (letters, digits, '-' and '_')", c)
	}
	for _, pkg := range p.o.Targets {
		flags = append(flags, "--package="+pkg)
	}
	if len(p.o.Features) > 0 {
		flags = append(flags, "--features="+strings.Join(p.o.Features, ","))
	}
	return append(flags, jobsArg("--jobs", p.o.Jobs)...), nil
}

// splitAtDashDash splits args at the first "--": cargo's own arguments
// before it, the test harness's after.
func splitAtDashDash(args []string) (before, after []string) {
	i := slices.Index(args, "--")
	if i < 0 {
		return args, nil
	}
	return args[:i], args[i+1:]
}
