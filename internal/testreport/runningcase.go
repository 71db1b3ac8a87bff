package testreport

import (
	"bufio"
	"bytes"
	"html"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// A program cut short names no case when its framework prints a case's
// name only when it fails (Catch2, doctest, Boost.Test). Rerun alone with
// the framework's streaming reporter (RunningArgs), it announces each case
// as the case starts and closes it as it ends: the case opened and never
// closed is the one running when the program ended (RunningCase).

// runningArgs are the arguments that make a framework's program announce
// each case as it starts, on its standard output.
var runningArgs = map[string][]string{
	"Catch2":     {"-r", "xml"},
	"doctest":    {"-r=xml"},
	"Boost.Test": {"--log_level=test_suite"},
}

// RunningArgs are the arguments that make a program of framework (one of
// ProgramFramework's) announce each case as it starts; nil when none do
// (GoogleTest's plain output already names it: "[ RUN      ] Suite.Name").
func RunningArgs(framework string) []string { return runningArgs[framework] }

// Running is the case a rerun ended in, and where the case is declared;
// or, when Site is set, where the program was ended ("exit in f at
// attribute.c:50").
type Running struct {
	Name string
	File string
	Line int
	Site string
}

var (
	xmlCaseRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`<TestCase name="([^"]*)"(?:[^>]*? filename="([^"]*)")?(?:[^>]*? line="(\d+)")?[^>]*?(/?)>`)
	})
	boostCaseRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.*?)\((\d+)\): (Entering|Leaving) test case "([^"]*)"`)
	})
)

// maxRunningDepth bounds the cases kept open while reading.
const maxRunningDepth = 64

// RunningCase reads a rerun's output (RunningArgs) and returns the case
// opened and never closed, the innermost; ok is false when every case the
// output opened was closed, or it opened none.
func RunningCase(out []byte) (Running, bool) {
	var open []Running
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, "</TestCase>"):
			open = open[:max(len(open)-1, 0)]
		case strings.Contains(line, "<TestCase "):
			if m := xmlCaseRE().FindStringSubmatch(line); m != nil && m[4] == "" && len(open) < maxRunningDepth {
				n, _ := strconv.Atoi(m[3])
				open = append(open, Running{Name: html.UnescapeString(m[1]), File: html.UnescapeString(m[2]), Line: n})
			}
		default:
			m := boostCaseRE().FindStringSubmatch(line)
			switch {
			case m == nil:
			case m[3] == "Leaving":
				open = open[:max(len(open)-1, 0)]
			case len(open) < maxRunningDepth:
				n, _ := strconv.Atoi(m[2])
				open = append(open, Running{Name: m[4], File: m[1], Line: n})
			}
		}
	}
	if len(open) == 0 {
		return Running{}, false
	}
	return open[len(open)-1], true
}

// NameRunning says, of the runner's test cut short (CutShort.Test test),
// which of its program's cases was running when it ended, and how that is
// known: its How and its case's message gain ", while running CASE".
// It reports whether a cut-short record of test was found.
func (r *Report) NameRunning(test string, running Running, why string) bool {
	what := ", while running " + running.Name + " ("
	switch {
	case running.Site != "":
		what += running.Site + "; "
	case running.File != "" && running.Line > 0:
		what += filepath.Base(running.File) + ":" + strconv.Itoa(running.Line) + "; "
	}
	what += why + ")"
	found := false
	for i := range r.CutShort {
		if cs := &r.CutShort[i]; cs.Test == test && !strings.Contains(cs.How, ", while running ") {
			cs.How += what
			found = true
		}
	}
	for i := range r.Cases {
		if c := &r.Cases[i]; c.Name == test && found && c.Status != Passed {
			c.Message += what
		}
	}
	return found
}
