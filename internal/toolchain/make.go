package toolchain

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func makeBuild(p *planInput) ([]Step, error) {
	if err := makeRefusals(p); err != nil {
		return nil, err
	}
	return []Step{makeStep(p, StepBuild, p.o.Targets)}, nil
}

// makeTest runs the Makefile's test target (see testTarget) or the given
// targets. Its output format is whatever the tests print (Format "").
func makeTest(p *planInput) ([]Step, error) {
	if err := makeRefusals(p); err != nil {
		return nil, err
	}
	targets := p.o.Targets
	if len(targets) == 0 {
		targets = []string{testTarget(p.dir)}
	}
	return []Step{makeStep(p, StepTest, targets)}, nil
}

// makeStep runs make on targets, with debug info where the Makefile takes
// its flags from the usual variables (see makeDebugFlags).
func makeStep(p *planInput, name string, targets []string) Step {
	flags, env := makeDebugFlags(p.dir, p.o)
	argv := append([]string{"make"}, jobsArg("--jobs", p.o.Jobs)...)
	argv = append(argv, flags...)
	argv = append(argv, p.o.Args...)
	argv = append(argv, targets...)
	s := p.step(name, argv...)
	for k, v := range env {
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env[k] = v
	}
	return s
}

// makeRefusals rejects options make has no standard way to honour, rather
// than dropping them.
func makeRefusals(p *planInput) error {
	if p.o.Configuration != "" {
		return p.errorf("configuration", "make has no standard configuration; pass the Makefile's variable in args (e.g. BUILD=release)")
	}
	if len(p.o.Run) > 0 || len(p.o.Skip) > 0 {
		return p.errorf("run/skip", "make has no test filter; pass the Makefile's variable in args (e.g. TESTS=name)")
	}
	return nil
}

// makefiles in the order GNU make reads them.
var makefiles = []string{"GNUmakefile", "makefile", "Makefile"}

// maxMakefileScan bounds how much of a Makefile testTarget reads.
const maxMakefileScan = 1 << 20

// testTarget returns "test", or "check" when the Makefile defines a check
// rule and no test rule (the autotools convention).
func testTarget(dir string) string {
	for _, name := range makefiles {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		defer f.Close()
		return pickTestTarget(io.LimitReader(f, maxMakefileScan))
	}
	return "test"
}

func pickTestTarget(r io.Reader) string {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	check := false
	for sc.Scan() {
		for _, t := range ruleTargets(sc.Text()) {
			switch t {
			case "test":
				return "test"
			case "check":
				check = true
			}
		}
	}
	if check {
		return "check"
	}
	return "test"
}

// ruleTargets returns the targets a Makefile line defines a rule for
// ("test check: all"), or nil for recipes, comments and assignments
// ("X := a:b", "test ::= 1").
func ruleTargets(line string) []string {
	if line == "" || line[0] == '\t' || line[0] == '#' {
		return nil
	}
	head, rest, ok := strings.Cut(line, ":")
	if !ok || strings.ContainsAny(head, "=#$") {
		return nil
	}
	rest = strings.TrimLeft(rest, ":")
	if strings.HasPrefix(rest, "=") {
		return nil
	}
	return strings.Fields(head)
}
