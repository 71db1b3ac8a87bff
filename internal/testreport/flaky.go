package testreport

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Occurrence is one test's failure in one run of a repeated test call.
type Occurrence struct {
	// Test is the test as shown (its Title); Name its own name, for a
	// filter that selects it. Both are "" for a run that failed without
	// naming a test (a silent failure, a runner's error).
	Test, Name string
	Kind       string // the case's StatusText, or the run's status
	Message    string // its first line (normalised) makes the signature
	// Site is the crash function, or the function a hung test was stuck
	// in, when known: it makes the signature instead of the message,
	// whose addresses and values differ between runs of one bug.
	Site string
}

// FailureGroup is one distinct failure of a test over repeated runs: the
// occurrences sharing a signature, and the first of them.
type FailureGroup struct {
	Signature   string `json:"signature"`
	Kind        string `json:"kind"`
	Message     string `json:"message,omitempty"` // the first occurrence's first line
	Site        string `json:"site,omitempty"`
	Count       int    `json:"count"`
	FirstRun    int    `json:"first_run"`    // 1-based
	FirstOutput string `json:"first_output"` // the output id of that run
}

// TestRuns is one test that failed in some of the runs.
type TestRuns struct {
	Test   string         `json:"test"`
	Name   string         `json:"name,omitempty"` // for a filter (run) that selects it
	Failed int            `json:"failed" jsonschema:"runs it failed in"`
	Groups []FailureGroup `json:"failures"`
}

// Flakiness is a repeated test call's tally: how many runs, and each
// test that failed in any of them with its distinct failures.
type Flakiness struct {
	Runs   int        `json:"runs"`
	Asked  int        `json:"asked"` // the runs asked for; more than Runs when stopped early
	Failed int        `json:"failed_runs"`
	Tests  []TestRuns `json:"tests,omitempty"` // the most failing first
	// Note says how the runs ran when not one process each (a runner's
	// own repeat, and why it ended early).
	Note string `json:"note,omitempty"`
}

// Tally collects the runs of a repeated test call in order.
type Tally struct {
	f     Flakiness
	index map[string]int // test -> Tests index
}

// NewTally tallies a repeat of asked runs.
func NewTally(asked int) *Tally {
	return &Tally{f: Flakiness{Asked: asked}, index: map[string]int{}}
}

// Add tallies the next run, stored as outputID, with its failures (none
// for a run that passed).
func (t *Tally) Add(outputID string, failures []Occurrence) {
	t.f.Runs++
	if len(failures) > 0 {
		t.f.Failed++
	}
	counted := map[string]bool{} // a test counts once per run
	for _, o := range failures {
		i, ok := t.index[o.Test]
		if !ok {
			i = len(t.f.Tests)
			t.index[o.Test] = i
			t.f.Tests = append(t.f.Tests, TestRuns{Test: o.Test, Name: o.Name})
		}
		tr := &t.f.Tests[i]
		if !counted[o.Test] {
			counted[o.Test] = true
			tr.Failed++
		}
		tr.add(o, t.f.Runs, outputID)
	}
}

// add puts o in its group, a new one for a new signature.
func (tr *TestRuns) add(o Occurrence, run int, outputID string) {
	sig := Signature(o)
	for i := range tr.Groups {
		if tr.Groups[i].Signature == sig {
			tr.Groups[i].Count++
			return
		}
	}
	tr.Groups = append(tr.Groups, FailureGroup{Signature: sig, Kind: o.Kind, Message: firstLine(o.Message),
		Site: o.Site, Count: 1, FirstRun: run, FirstOutput: outputID})
}

// Runs is the runs tallied so far.
func (t *Tally) Runs() int { return t.f.Runs }

// Say adds a sentence to the tally's note.
func (t *Tally) Say(note string) {
	if t.f.Note != "" {
		t.f.Note += "; "
	}
	t.f.Note += note
}

// Result is the tally so far, the most failing test first.
func (t *Tally) Result() Flakiness {
	f := t.f
	f.Tests = append([]TestRuns(nil), f.Tests...)
	sort.SliceStable(f.Tests, func(i, j int) bool { return f.Tests[i].Failed > f.Tests[j].Failed })
	return f
}

// number is an address or a number, hex first: 0x7ffd is one address.
var number = regexp.MustCompile(`0[xX][0-9a-fA-F]+|[0-9]+(\.[0-9]+)?`)

// Signature groups a failure with its likes: the test, the kind and the
// crash or stuck function, else the first line of the message with its
// addresses and numbers normalised (a counter's value, a pointer, a
// duration differ between runs of the same failure).
func Signature(o Occurrence) string {
	what := o.Site
	if what == "" {
		what = number.ReplaceAllStringFunc(firstLine(o.Message), func(n string) string {
			if len(n) > 1 && (n[1] == 'x' || n[1] == 'X') {
				return "0x?"
			}
			return "N"
		})
	}
	return o.Test + " | " + o.Kind + " | " + what
}

// firstLine is s's first non-blank line, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// Flaky reports whether a test failed in some runs and passed in others.
func (f Flakiness) Flaky() bool {
	for _, t := range f.Tests {
		if t.Failed < f.Runs {
			return true
		}
	}
	return false
}

// Verdict is the repeat's verdict line: every run passed, tests that
// failed in some runs only (FLAKY, with their distinct failures), or
// tests that failed in every run.
func (f Flakiness) Verdict() string { return f.verdict("TESTS PASSED", "TESTS FAILED") }

// RunVerdict is Verdict for a program run repeatedly (its one "test" is
// the program).
func (f Flakiness) RunVerdict() string { return f.verdict("SUCCEEDED", "FAILED") }

func (f Flakiness) verdict(passedHead, failedHead string) string {
	if len(f.Tests) == 0 {
		return fmt.Sprintf("%s: %d of %d runs", passedHead, f.Runs, f.Runs)
	}
	var always, flaky []string
	for _, t := range f.Tests {
		line := fmt.Sprintf("%s failed %d of %d runs", t.display(), t.Failed, f.Runs)
		if t.Failed == f.Runs {
			always = append(always, line)
			continue
		}
		flaky = append(flaky, fmt.Sprintf("%s (%s)", line, distinct(len(t.Groups))))
	}
	switch {
	case len(always) == 0:
		return "FLAKY: " + joinBounded(flaky)
	case len(flaky) == 0:
		return failedHead + ": " + joinBounded(always)
	}
	return failedHead + ": " + joinBounded(always) + "; FLAKY: " + joinBounded(flaky)
}

// display names the test; a failure no test was named for is the run's.
func (t TestRuns) display() string {
	if t.Test == "" {
		return "the run"
	}
	return t.Test
}

func distinct(n int) string {
	if n == 1 {
		return "1 distinct failure"
	}
	return fmt.Sprintf("%d distinct failures", n)
}

// joinBounded joins the first three and counts the rest: a verdict line
// stays one line.
func joinBounded(parts []string) string {
	if len(parts) <= 3 {
		return strings.Join(parts, "; ")
	}
	return fmt.Sprintf("%s; and %d more tests", strings.Join(parts[:3], "; "), len(parts)-3)
}

// WriteText writes each failing test's distinct failures with their
// counts and where the first is stored.
func (f Flakiness) WriteText(b *strings.Builder) {
	for _, t := range f.Tests {
		fmt.Fprintf(b, "%s: failed %d of %d runs\n", t.display(), t.Failed, f.Runs)
		for _, g := range t.Groups {
			what := g.Message
			if g.Site != "" {
				what = "in " + g.Site
				if g.Message != "" {
					what += ": " + g.Message
				}
			}
			fmt.Fprintf(b, "  %d× %s: %s (first: run %d, output %s)\n", g.Count, g.Kind, what, g.FirstRun, g.FirstOutput)
		}
	}
	if f.Runs < f.Asked {
		fmt.Fprintf(b, "ran %d of the %d runs asked for\n", f.Runs, f.Asked)
	}
	if f.Note != "" {
		b.WriteString(f.Note + "\n")
	}
}
