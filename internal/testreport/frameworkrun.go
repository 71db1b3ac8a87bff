package testreport

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The C and C++ test frameworks' own output (Boost.Test, Check, CUnit,
// cmocka, Criterion, Unity; Catch2 and doctest too), read when a test
// program runs without a runner of its own above it (`make test` running
// the program). Each reader is a file of its own; frameworkRun is what
// they share: the cases
// in the order their results came, the tests started and not finished, and
// whether the framework's summary came. A program is complete with its
// summary and a result for every test it started; one without (the
// program crashed in a test, exit(0) in a test, killed) was cut short,
// naming the test that was running where the framework says a test started.
//
// One output may hold several programs of one framework (a Makefile's test
// target running each): a framework's start line, or a result after a
// summary, begins the next program's run.

// frameworkRun follows one framework's runs through an output.
type frameworkRun struct {
	rep   *Report
	name  string // the framework as the verdict says it: "Check"
	index map[string]int

	open     bool     // a program's run began and has not ended
	summary  bool     // this run's summary came
	first    int      // this run's first case in rep.Cases
	running  []string // keys of tests started, no result yet
	suite    string   // what the run's cut-short entry names when no test is known
	implied  int      // passed tests this run's summary counts; -1 unknown
	quietWhy string   // why a passing test may go unnamed, and how to name them
	unnamed  int      // unnamed passing cases added so far
	latest   int      // index of the case result or caseOf last returned (pointers go stale as cases grow)

	summaryFirst bool // the framework prints its summary before the results (Check)
	// namedPassMeansAll: the framework names a passing test only in a
	// mode that names every test (Check's CK_VERBOSE, CUnit's
	// CU_BRM_VERBOSE, Criterion's --verbose, Boost.Test's test_suite log
	// level), so a run that names some but fewer than its summary counts
	// lost the others.
	namedPassMeansAll bool
	death             string // what a shell, make or a sanitizer said killed the program
}

func newFrameworkRun(format, name string) *frameworkRun {
	return &frameworkRun{rep: &Report{Format: format}, name: name, index: map[string]int{}, implied: -1}
}

func caseKey(suite, name string) string { return suite + "\x00" + name }

// begin starts a program's run, ending the one before it.
func (f *frameworkRun) begin(suite string) {
	if f.open {
		f.end()
	}
	f.open, f.summary, f.first, f.running, f.implied, f.death = true, false, len(f.rep.Cases), nil, -1, ""
	f.suite = suite
	if f.suite == "" {
		f.suite = f.rep.Format
	}
}

// ensure begins a run when none is open (a framework whose output has no
// start line of its own, or whose start line was not in the output), or
// when this one's summary came: a result after it is the next program's,
// unless the framework prints its summary first (Check).
func (f *frameworkRun) ensure() {
	if !f.open || f.summary && !f.summaryFirst {
		f.begin("")
	}
}

// start records a test that started.
func (f *frameworkRun) start(suite, name string) {
	f.ensure()
	k := caseKey(suite, name)
	if !slices.Contains(f.running, k) {
		f.running = append(f.running, k)
	}
}

// result records a test's result (or more of it) and returns its case: a
// case already recorded in this run under the same suite and name is
// updated in place.
func (f *frameworkRun) result(suite, name string, st Status) *Case {
	f.ensure()
	return f.record(suite, name, st)
}

// record is result in the open run.
func (f *frameworkRun) record(suite, name string, st Status) *Case {
	k := caseKey(suite, name)
	f.running = slices.DeleteFunc(f.running, func(r string) bool { return r == k })
	if i, ok := f.index[k]; ok && i >= f.first {
		c := &f.rep.Cases[i]
		if st != "" {
			c.Status = st
		}
		f.latest = i
		return c
	}
	f.latest = len(f.rep.Cases)
	f.index[k] = f.latest
	f.rep.Cases = append(f.rep.Cases, Case{Suite: suite, Name: name, Status: st})
	return &f.rep.Cases[f.latest]
}

// caseOf returns this run's case of suite and name, made without a status
// when there is none; a test started stays running.
func (f *frameworkRun) caseOf(suite, name string) *Case {
	if i, ok := f.index[caseKey(suite, name)]; ok && i >= f.first {
		f.latest = i
		return &f.rep.Cases[i]
	}
	f.ensure()
	f.latest = len(f.rep.Cases)
	f.index[caseKey(suite, name)] = f.latest
	f.rep.Cases = append(f.rep.Cases, Case{Suite: suite, Name: name})
	return &f.rep.Cases[f.latest]
}

// at returns the case of an index latest held, or nil for -1.
func (f *frameworkRun) at(i int) *Case {
	if i < 0 || i >= len(f.rep.Cases) {
		return nil
	}
	return &f.rep.Cases[i]
}

// lookup returns this run's case of suite and name, or nil.
func (f *frameworkRun) lookup(suite, name string) *Case {
	if i, ok := f.index[caseKey(suite, name)]; ok && i >= f.first {
		return &f.rep.Cases[i]
	}
	return nil
}

// summarized records this run's summary; passed is how many tests passed
// by it (-1: it does not say).
func (f *frameworkRun) summarized(passed int) {
	if !f.open {
		f.begin("")
	}
	f.summary, f.implied = true, passed
}

// died reads a line that may say how the program died: the shell's or
// make's report of the signal that killed it, a sanitizer's report. It
// reports whether the line said so. What it says is the death of the test
// that was running, should the run end without its summary.
func (f *frameworkRun) died(line string) bool {
	ev := crashEvidence(line)
	if ev != "" && f.open && f.death == "" {
		f.death = ev
	}
	return ev != ""
}

// end ends the open run: a test started without a result was cut short
// there, and so was a run without its summary, unless what killed the
// program was said (died): then the test crashed. The passing tests the
// summary counts and the output does not name are added unnamed.
func (f *frameworkRun) end() {
	if !f.open {
		return
	}
	death := f.death
	if f.summary {
		death = "" // the framework outlived it (a test's own process)
	}
	running := f.running
	f.running = nil
	for _, k := range running {
		suite, name, _ := strings.Cut(k, "\x00")
		c := f.record(suite, name, "")
		if death != "" {
			c.Status = Crashed
			c.Message = bound(strings.TrimSpace("the test program died in the test: " + death + "\n" + c.Message))
			f.rep.crashSeen = true
			continue
		}
		if c.Status == "" || c.Status == Passed {
			c.Status = Errored
		}
		how := "the output ended before its result and " + f.name + "'s summary"
		if f.summary {
			how = f.name + " reported no result for it"
		}
		c.Message = bound(strings.TrimSpace("the test program ended before the test finished (" + how + ")\n" + c.Message))
		f.rep.cutShort(suite, name, how)
	}
	named := len(running) > 0
	f.open = false
	switch {
	case !f.summary && !named && death != "":
		// The output does not name the test that was running.
		f.rep.Cases = append(f.rep.Cases, Case{Suite: f.suite, Name: UnnamedCase, Status: Crashed,
			Message: bound("the test program died before " + f.name + "'s summary: " + death)})
		f.rep.crashSeen = true
	case !f.summary && !named:
		f.rep.cutShort(f.suite, "", "the output ended before "+f.name+"'s summary")
	}
	if f.summary && f.implied >= 0 {
		f.addUnnamedPasses()
	}
}

// addUnnamedPasses makes the passed tests the summary counts and the output
// does not name unnamed passed cases (a quiet mode names only failures).
func (f *frameworkRun) addUnnamedPasses() {
	passed := 0
	for _, c := range f.rep.Cases[f.first:] {
		if c.Status == Passed {
			passed++
		}
	}
	n := f.implied - passed
	if n > 0 && passed > 0 && f.namedPassMeansAll {
		// The output names passing tests (a verbose mode, which names
		// every test) but not all the summary counts: it lost some.
		f.rep.cutShort(f.suite, "", fmt.Sprintf("%s's summary counts %d passed tests and the output names %d", f.name, f.implied, passed))
		return
	}
	if n > 0 {
		added := min(n, maxUnnamed-f.unnamed)
		for range added {
			f.unnamed++
			f.rep.Cases = append(f.rep.Cases, Case{Suite: f.rep.Format, Name: fmt.Sprintf("(unnamed passing test %d)", f.unnamed), Status: Passed})
		}
		note := fmt.Sprintf("%d passing tests are not named in the output: %s", n, f.quietWhy)
		if added < n {
			note += fmt.Sprintf(" (%d of them counted here)", added)
		}
		f.rep.Notes = append(f.rep.Notes, note)
	}
}

// maxUnnamed bounds the unnamed passing cases of one output (a summary's
// count is the framework's word, or any number in a damaged log).
const maxUnnamed = 100000

// done ends the output: the open run ends, and the report is returned.
func (f *frameworkRun) done() *Report {
	f.end()
	return f.rep
}

// frameworkSniffer finds one framework's anchor in a sample: a line that
// holds one of its words and matches its pattern, a line no other
// format's output has. The words keep a sample without them to a few
// scans (a 64 KiB build log in well under a millisecond).
type frameworkSniffer struct {
	format string
	words  [][]byte
	line   *regexp.Regexp
}

func newSniffer(format, pattern string, words ...string) frameworkSniffer {
	s := frameworkSniffer{format: format, line: regexp.MustCompile(pattern)}
	for _, w := range words {
		s.words = append(s.words, []byte(w))
	}
	return s
}

var frameworkSniffers = sync.OnceValue(func() []frameworkSniffer {
	return []frameworkSniffer{
		// "Running 4 test cases...", `Entering test module "m"`,
		// `*** No errors detected`, `*** 1 failure is detected in the test module "m"`
		newSniffer(FormatBoostTest, `^(?:Running \d+ test cases?\.\.\.\r?$|Entering test module "|(?:\x1b\[[0-9;]*m)*\*\*\* (?:No errors detected|\d+ failures? (?:is|are) detected))`,
			" test case", `Entering test module "`, "*** "),
		// "Running suite(s): Math", "75%: Checks: 4, Failures: 1, Errors: 0"
		newSniffer(FormatCheck, `^(?:Running suite\(s\):|\d{1,3}%: Checks: \d+, Failures: \d+, Errors: \d+)`,
			"Running suite(s):", "%: Checks: "),
		// "[==========] Running 4 test(s).", "[==========] 4 test(s) run."
		newSniffer(FormatCmocka, `^\[=+\] (?:\S+: )?(?:Running \d+ test\(s\)\.|\d+ test\(s\) run\.)`, " test(s)"),
		// "[----] Criterion v2.4.1", "[RUN ] math::add", "[FAIL] math::fault: CRASH!",
		// "[====] Synthesis: Tested: 4 | Passing: 3 | …"
		newSniffer(FormatCriterion, `^\[(?:----\] Criterion v|====\] Synthesis: Tested: |====\] Running \d+ tests? from |(?:RUN |PASS|FAIL|SKIP)\] [^\s:]+::\S)`,
			"[----] Criterion v", "[====] ", "[RUN ] ", "[PASS] ", "[FAIL] ", "[SKIP] "),
		// "     CUnit - A unit testing framework for C - Version 2.1-3",
		// "Run Summary:    Type  Total    Ran Passed Failed Inactive"
		newSniffer(FormatCUnit, `^(?:\s*CUnit - A unit testing framework for C|-*Run Summary: +Type +Total +Ran)`,
			"CUnit - A unit testing framework for C", "Run Summary:"),
		// "unity_t.c:17:test_add:PASS", "4 Tests 1 Failures 1 Ignored"
		newSniffer(FormatUnity, `^(?:[^\s:][^:]*:\d+:\w+:(?:PASS|FAIL|IGNORE)\b|\d+ Tests \d+ Failures \d+ Ignored)`,
			":PASS", ":FAIL", ":IGNORE", " Failures "),
	}
})

// maxSniffLines bounds the lines holding one word that a sniffer matches
// against its pattern.
const maxSniffLines = 256

// first returns where the first anchor line before offset before starts,
// or -1.
func (s frameworkSniffer) first(sample []byte, before int) int {
	best := -1
	for _, w := range s.words {
		from := 0
		for range maxSniffLines {
			i := bytes.Index(sample[from:], w)
			if i < 0 {
				break
			}
			i += from
			start := bytes.LastIndexByte(sample[:i], '\n') + 1
			if start >= before || best >= 0 && start >= best {
				break
			}
			end := len(sample)
			if j := bytes.IndexByte(sample[i:], '\n'); j >= 0 {
				end = i + j
			}
			if s.line.Match(sample[start:end]) {
				best = start
				break
			}
			if end == len(sample) {
				break
			}
			from = end + 1
		}
	}
	return best
}

// frameworkFormat names the C test framework whose output the sample is,
// the one whose anchor comes first; "" when none.
func frameworkFormat(sample []byte) string {
	format, at := "", len(sample)+1
	for _, s := range frameworkSniffers() {
		if i := s.first(sample, at); i >= 0 && i < at {
			format, at = s.format, i
		}
	}
	return format
}
