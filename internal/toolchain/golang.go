package toolchain

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/triage-dev/triage/internal/testreport"
)

func goBuild(p *planInput) ([]Step, error) {
	flags, err := goFlags(p)
	if err != nil {
		return nil, err
	}
	if len(p.o.Run) > 0 || len(p.o.Skip) > 0 {
		return nil, p.errorf("run/skip", "select tests with the test tool, not build")
	}
	argv := append([]string{"go", "build"}, flags...)
	argv = append(argv, p.o.Args...)
	argv = append(argv, goPackages(p.o.Targets)...)
	return []Step{p.step(StepBuild, argv...)}, nil
}

func goTest(p *planInput) ([]Step, error) {
	flags, err := goFlags(p)
	if err != nil {
		return nil, err
	}
	flags = append(flags, goSanitizeFlags(p.o.Check)...)
	argv := append([]string{"go", "test", "-json"}, flags...)
	var filter []string
	for _, f := range []struct {
		flag     string
		patterns []string
	}{{"-run", p.o.Run}, {"-skip", p.o.Skip}} {
		if len(f.patterns) == 0 {
			continue
		}
		pat, err := goPattern(f.patterns)
		if err != nil {
			return nil, p.errorf(f.flag[1:], "%v", err)
		}
		filter = append(filter, f.flag+"="+pat)
	}
	argv = append(argv, filter...)
	argv = append(argv, p.o.Args...)
	argv = append(argv, goPackages(p.o.Targets)...)
	s := p.step(StepTest, argv...)
	s.Format = testreport.FormatGoJSON
	s.Filter = strings.Join(filter, " ")
	if p.o.Coverage {
		rerun := append(append([]string{"go", "test"}, flags...), p.o.Args...)
		goCoverage(p, &s, goPackages(p.o.Targets), rerun)
	}
	return []Step{s}, nil
}

// goFlags returns the flags shared by go build and go test.
func goFlags(p *planInput) ([]string, error) {
	flags := jobsArg("-p", p.o.Jobs)
	switch strings.ToLower(p.o.Configuration) {
	case "":
	case "debug":
		// What Delve builds with: no optimisation, no inlining.
		flags = append(flags, "-gcflags=all=-N -l")
	case "release":
		flags = append(flags, "-trimpath")
	default:
		return nil, p.errorf("configuration", "go knows debug (no optimisation, for debuggers) and release (-trimpath), not %q", p.o.Configuration)
	}
	if len(p.o.Features) > 0 {
		flags = append(flags, "-tags="+strings.Join(p.o.Features, ","))
	}
	return flags, nil
}

func goPackages(targets []string) []string {
	if len(targets) == 0 {
		return []string{"./..."}
	}
	return targets
}

// goPattern joins -run or -skip patterns into one. go test splits a pattern
// on '/' (outside brackets and parentheses) to match each level of subtests,
// and an alternation cannot span levels, so patterns holding a '/' can only
// be passed alone.
func goPattern(patterns []string) (string, error) {
	for _, pat := range patterns {
		if _, err := regexp.Compile(pat); err != nil {
			return "", err
		}
	}
	if len(patterns) == 1 {
		return patterns[0], nil
	}
	parts := make([]string, len(patterns))
	for i, pat := range patterns {
		if strings.Contains(pat, "/") {
			return "", fmt.Errorf("go test matches subtests level by level, so the subtest pattern %q cannot be joined with others: write one pattern level by level, e.g. TestA|TestB/sub", pat)
		}
		parts[i] = "(" + pat + ")"
	}
	return strings.Join(parts, "|"), nil
}
