package toolchain

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/testreport"
)

// swiftBuild builds with SwiftPM; swift build takes one --target, so each
// target is a step of its own. Clean first removes the build artifacts
// (swift package clean).
func swiftBuild(p *planInput) ([]Step, error) {
	if len(p.o.Run) > 0 || len(p.o.Skip) > 0 {
		return nil, p.errorf("run/skip", "select tests with the test tool, not build")
	}
	flags, err := swiftFlags(p)
	if err != nil {
		return nil, err
	}
	var steps []Step
	if p.o.Clean {
		steps = append(steps, p.step(StepClean, "swift", "package", "clean"))
	}
	if len(p.o.Targets) == 0 {
		argv := append(append([]string{"swift", "build"}, flags...), p.o.Args...)
		return append(steps, p.step(StepBuild, argv...)), nil
	}
	for _, t := range p.o.Targets {
		argv := append([]string{"swift", "build"}, flags...)
		argv = append(argv, "--target="+t)
		argv = append(argv, p.o.Args...)
		steps = append(steps, p.step(StepBuild, argv...))
	}
	return steps, nil
}

// swiftTest runs swift test serially: --parallel replaces the XCTest and
// Swift Testing lines the parser reads with a progress display.
func swiftTest(p *planInput) ([]Step, error) {
	if len(p.o.Targets) > 0 {
		return nil, p.errorf("targets", "swift test builds every test target; select tests with run (--filter)")
	}
	if err := swiftSerial(p); err != nil {
		return nil, err
	}
	flags, err := swiftFlags(p)
	if err != nil {
		return nil, err
	}
	var filter []string
	for _, f := range p.o.Run {
		filter = append(filter, "--filter="+f)
	}
	for _, f := range p.o.Skip {
		filter = append(filter, "--skip="+f)
	}
	argv := append([]string{"swift", "test"}, flags...)
	argv = append(argv, filter...)
	argv = append(argv, p.o.Args...)
	s := p.step(StepTest, argv...)
	s.Format = testreport.FormatXCTest
	s.Filter = strings.Join(filter, " ")
	if p.o.Coverage {
		swiftCoverage(p, &s, flags)
	}
	return []Step{s}, nil
}

// swiftCoverage makes a swift test step a coverage run: SwiftPM
// instruments the package (--enable-code-coverage), merges the profiles
// and keeps llvm-cov's JSON export where swift test --show-codecov-path,
// given the same configuration and build location, says.
func swiftCoverage(p *planInput, s *Step, flags []string) {
	s.Argv = append(s.Argv[:2:2], append([]string{swiftCoverFlag}, s.Argv[2:]...)...)
	where := append(slices.Clone(flags), swiftLocation(p.o.Args)...)
	build := filepath.Join(p.dir, ".build")
	for i, a := range where {
		if v, ok := strings.CutPrefix(a, "--scratch-path="); ok {
			build = v
		} else if v, ok := strings.CutPrefix(a, "--build-path="); ok {
			build = v
		} else if (a == "--scratch-path" || a == "--build-path") && i+1 < len(where) {
			build = where[i+1]
		}
	}
	if !filepath.IsAbs(build) {
		build = filepath.Join(p.dir, build)
	}
	s.Coverage = &Coverage{
		Tool: "swiftpm", PathArgv: slices.Concat([]string{"swift", "test"}, where, []string{"--show-codecov-path"}),
		Generated: []string{build},
		Rerun:     slices.Concat([]string{"swift", "test", swiftCoverFlag}, flags, swiftRerunArgs(p.o.Args)),
		Tried:     "swift test " + swiftCoverFlag,
		Advice:    "check that the tests were built (a build that fails writes no coverage) and that the toolchain's llvm-cov is installed with swift",
	}
}

// swiftCoverFlag makes SwiftPM build and run the tests with coverage.
const swiftCoverFlag = "--enable-code-coverage"

// swiftLocationFlags say where SwiftPM builds, which is where it keeps the
// coverage JSON: --show-codecov-path must be given them too.
var swiftLocationFlags = []string{"--scratch-path", "--build-path", "--package-path", "--triple", "--sdk", "--swift-sdk"}

// swiftLocation is the caller's args that say where SwiftPM builds, in
// both forms (--flag=value, --flag value).
func swiftLocation(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		flag, _, hasValue := strings.Cut(args[i], "=")
		if !slices.Contains(swiftLocationFlags, flag) {
			continue
		}
		out = append(out, args[i])
		if !hasValue && i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
	}
	return out
}

// swiftRerunArgs are the caller's args a rerun of one test keeps: all but
// the test selection, which the rerun's --filter replaces.
func swiftRerunArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		flag, _, hasValue := strings.Cut(args[i], "=")
		if flag == "--filter" || flag == "--skip" {
			if !hasValue {
				i++
			}
			continue
		}
		out = append(out, args[i])
	}
	return out
}

func swiftFlags(p *planInput) ([]string, error) {
	var flags []string
	switch c := strings.ToLower(p.o.Configuration); c {
	case "":
	case "debug", "release":
		flags = append(flags, "--configuration="+c)
	default:
		return nil, p.errorf("configuration", "SwiftPM knows debug and release, not %q", p.o.Configuration)
	}
	return append(flags, jobsArg("--jobs", p.o.Jobs)...), nil
}

// swiftSerial refuses a parallel run asked for in args. SwiftPM's parallel
// runner prints a "[N/M] Testing X" progress line per test and the output
// of failed tests only: no test passes visibly, so no verdict could be told
// from a run cut short or a crash, and the counts would be guesses.
func swiftSerial(p *planInput) error {
	for _, a := range p.o.Args {
		flag, _, _ := strings.Cut(a, "=")
		if flag == "--parallel" || flag == "--num-workers" {
			return p.errorf("args", "%s: triage runs swift test serially, because the parallel runner prints only progress lines and the output of failed tests, not the per-test results the verdict is read from; leave it out", a)
		}
	}
	return nil
}
