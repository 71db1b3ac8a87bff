package testreport

import (
	"io"
	"strings"
)

// NameCutShort names the test that was running when a run was cut short,
// found after the fact (a rerun of the unreported tests one at a time, the
// stacks taken before a hung run was killed). It names the first unnamed
// cut-short run of suite (any suite when ""), records the test as errored
// with why, and reports whether there was one to name.
func (r *Report) NameCutShort(suite, test, why string) bool {
	for i := range r.CutShort {
		cs := &r.CutShort[i]
		if cs.Test != "" || suite != "" && cs.Suite != suite {
			continue
		}
		cs.Test = test
		r.Cases = append(r.Cases, Case{Suite: cs.Suite, Name: test, Status: Errored,
			Message: "the test binary ended before the test finished (" + cs.How + "); " + why})
		r.Totals.Total++
		r.Totals.Errored++
		for j := range r.Suites {
			if r.Suites[j].Name == cs.Suite {
				r.Suites[j].Tests++
				r.Suites[j].Errors++
			}
		}
		return true
	}
	return false
}

// A parallel libtest prints a test's name only once it finishes, so a test
// that ends its binary (process::exit) leaves no name. triage then reruns
// the binary's unreported tests one at a time (--test-threads=1 prints
// "test x ... " before running x) and writes the rerun into the log, after
// a header RerunHeader makes; the cargo parser reads the section the same
// way in a live run and in a log read later: the test the rerun's output
// ends on, without a result, is the one that ended the binary.

const (
	rerunPrefix  = "--- rerun of "
	rerunStopped = "--- rerun stopped"
)

// RerunHeader is the line a rerun of suite's unreported tests starts with.
func RerunHeader(suite string) string {
	return rerunPrefix + suite + ": its unreported tests, one at a time, to find the one that ended it ---"
}

// RerunStopped is the line written when a rerun was stopped (its time
// limit): the test it ends on was cut, not the culprit.
func RerunStopped(why string) string { return rerunStopped + ": " + why + " ---" }

type rerunState struct {
	active  bool
	suite   string
	pending string // the test printed without a result yet
}

// rerunLine reads a line of a rerun section; false for any other line.
func (p *cargoParser) rerunLine(line string) bool {
	t := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(t, rerunPrefix) && strings.HasSuffix(t, " ---"):
		p.endBinary("the output ended")
		p.endPending(Errored, "the test binary ended before reporting a result")
		p.endRerun()
		suite, _, ok := strings.Cut(strings.TrimPrefix(t, rerunPrefix), ": ")
		p.rerun = rerunState{active: ok, suite: suite}
		return true
	case !p.rerun.active:
		return false
	case strings.HasPrefix(t, rerunStopped):
		p.rerun = rerunState{}
		return true
	case strings.HasPrefix(t, "Running ") || strings.HasPrefix(t, "Doc-tests "):
		p.endRerun()
		return false
	case strings.HasPrefix(line, "test result: "):
		p.rerun = rerunState{} // every test finished alone: no culprit
		return true
	case strings.HasPrefix(line, "test ") && strings.Contains(line, " ... "):
		if m := cargoCaseRE().FindStringSubmatch(line); m != nil {
			p.rerun.pending = ""
			if m[2] == "" {
				p.rerun.pending = m[1]
			}
		}
	}
	return true
}

// endRerun names the culprit of the rerun being read, if it ended on one.
func (p *cargoParser) endRerun() {
	if p.rerun.active && p.rerun.pending != "" {
		p.rep.NameCutShort(p.rerun.suite, p.rerun.pending, RerunWhy)
	}
	p.rerun = rerunState{}
}

// RerunWhy is what a culprit found by a rerun is recorded with.
const RerunWhy = "it ended the binary again when its unreported tests were rerun one at a time"

// ReadRerun reads a rerun section alone (its header, then the rerun's
// output) and returns the suite and the test it ended on, or "" for none.
func ReadRerun(r io.Reader) (suite, culprit string, err error) {
	p := &cargoParser{rep: &Report{Format: FormatCargo}, index: map[string]int{}, running: -1}
	if err := lines(r, p.line); err != nil {
		return "", "", err
	}
	if !p.rerun.active {
		return "", "", nil
	}
	return p.rerun.suite, p.rerun.pending, nil
}

// MoveCrash moves the crash of suite's case from to the case to, found
// after the fact (the crashing thread's stack names the test it ran): a
// parallel libtest's "test from ... " can be cut from its result by another
// test's abort, which the log then seems to blame on from. The unnamed case
// takes the name; a named one keeps no result. It reports whether from was
// a crashed case of suite.
func (r *Report) MoveCrash(suite, from, to, why string) bool {
	fi, ti := -1, -1
	for i, c := range r.Cases {
		switch {
		case c.Suite != suite:
		case c.Name == from && c.Status == Crashed:
			fi = i
		case c.Name == to:
			ti = i
		}
	}
	if fi < 0 || from == to {
		return false
	}
	if from == UnnamedCase && ti < 0 {
		r.Cases[fi].Name = to
		return true
	}
	msg := r.Cases[fi].Message
	r.Cases[fi].Status, r.Cases[fi].Message = Errored, "no result: the test binary was killed by the crash of "+to
	r.Totals.Crashed--
	r.Totals.Errored++
	if ti < 0 {
		r.Cases = append(r.Cases, Case{Suite: suite, Name: to})
		ti = len(r.Cases) - 1
		r.Totals.Total++
		r.countSuite(suite)
	} else {
		r.uncount(r.Cases[ti].Status)
	}
	r.Cases[ti].Status, r.Cases[ti].Message = Crashed, strings.TrimSpace(why+"\n"+msg)
	r.Totals.Crashed++
	return true
}

// countSuite adds a crashed test to suite's counts.
func (r *Report) countSuite(suite string) {
	for j := range r.Suites {
		if r.Suites[j].Name == suite {
			r.Suites[j].Tests++
			r.Suites[j].Errors++
		}
	}
}

// uncount takes a case of status s out of the totals.
func (r *Report) uncount(s Status) {
	switch s {
	case Passed:
		r.Totals.Passed--
	case Failed:
		r.Totals.Failed--
	case Skipped:
		r.Totals.Skipped--
	case Errored:
		r.Totals.Errored--
	case Crashed:
		r.Totals.Crashed--
	}
}
