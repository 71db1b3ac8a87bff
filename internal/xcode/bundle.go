package xcode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/testreport"
)

// readBundle reads the result bundle xcodebuild wrote, if it did, and
// revises the verdict by it. The bundle is authoritative for counts and
// failure messages; the log keeps the last word on crashes, which the
// bundle may not record (a runner that died before writing its results).
func (o *BuildOutcome) readBundle(ctx context.Context, bundle, dir string) {
	if _, err := os.Stat(bundle); err != nil {
		o.Notes = append(o.Notes, "xcodebuild wrote no result bundle; the verdict rests on its log")
		os.RemoveAll(dir)
		return
	}
	o.ResultBundle = bundle
	sum, cases, err := ReadBundle(ctx, bundle)
	if err != nil {
		o.Notes = append(o.Notes, fmt.Sprintf("reading the result bundle: %v", err))
		return
	}
	o.Summary, o.Cases = sum, cases
	o.merge()
}

// ReadBundle reads a result bundle's test summary and, with Xcode 16's
// xcresulttool, its test cases; older xcresulttools (no `get
// test-results`) are read through the legacy format, which has no cases.
func ReadBundle(ctx context.Context, bundle string) (*TestSummary, []testreport.Case, error) {
	cmd, err := SummaryCommand(bundle)
	if err != nil {
		return nil, nil, err
	}
	out, err := Run(ctx, cmd, 0)
	if err != nil {
		var ce *CommandError
		if !errors.As(err, &ce) {
			return nil, nil, err
		}
		legacy, lerr := LegacyCommand(bundle)
		if lerr != nil {
			return nil, nil, lerr
		}
		lout, lerr := Run(ctx, legacy, 0)
		if lerr != nil {
			return nil, nil, fmt.Errorf("%v; legacy format: %v", err, lerr)
		}
		sum, lerr := ParseLegacy(lout)
		return sum, nil, lerr
	}
	sum, err := ParseSummary(out)
	if err != nil {
		return nil, nil, err
	}
	var cases []testreport.Case
	if tcmd, err := TestsCommand(bundle); err == nil {
		if tout, err := Run(ctx, tcmd, 0); err == nil {
			if tree, err := ParseTests(tout); err == nil {
				cases = tree.Cases()
			}
		}
	}
	return sum, cases, nil
}

// merge revises the verdict by the summary.
func (o *BuildOutcome) merge() {
	s := o.Summary
	switch o.Status {
	case pipeline.Crashed, pipeline.TimedOut, pipeline.Interrupted:
		// What the log and the process said stands; the counts are added.
		if s.Failed > 0 {
			o.Line += fmt.Sprintf(" (result bundle: %d of %d failed)", s.Failed, s.Total)
		}
		return
	}
	switch st := s.Status(); {
	case crashFailure(s) != nil:
		f := crashFailure(s)
		o.Status = pipeline.Crashed
		o.Line = fmt.Sprintf("CRASHED: %s — %s", f.TestName, clip(firstLine(f.Text), 160))
		if s.Failed > 1 {
			o.Line += fmt.Sprintf(" (%d of %d failed)", s.Failed, s.Total)
		}
	case s.Failed > 0:
		o.Status = pipeline.Failed
		o.Line = fmt.Sprintf("TESTS FAILED: %d of %d failed", s.Failed, s.Total)
	case !o.Status.OK():
		// The bundle counts no failed test but the run failed (the build,
		// the runner): keep the failure, and say the two disagree.
		if st == testreport.Passed {
			o.Notes = append(o.Notes, fmt.Sprintf("the result bundle says %s (%d passed), but xcodebuild's run did not succeed", s.Result, s.Passed))
		}
	case st == testreport.Failed:
		o.Status = pipeline.Failed
		o.Line = fmt.Sprintf("TESTS FAILED: the result bundle says %s", s.Result)
	case st == testreport.Errored:
		o.Status = pipeline.Failed
		o.Line = fmt.Sprintf("TESTS DID NOT FINISH: the result bundle says %q after %d passed", s.Result, s.Passed)
	case st == testreport.NoTests:
		o.Status = pipeline.NoTests
		o.Line = "NO TESTS RAN: the result bundle records no test"
	default:
		o.Line = fmt.Sprintf("TESTS PASSED: %d passed", s.Passed)
		if s.Skipped > 0 {
			o.Line += fmt.Sprintf(", %d skipped", s.Skipped)
		}
	}
	if rep := o.Run.Report; rep != nil && rep.Totals.Total > 0 && rep.Totals.Total != s.Total {
		o.Notes = append(o.Notes, fmt.Sprintf("the log showed %d tests, the result bundle %d; counts are the bundle's", rep.Totals.Total, s.Total))
	}
}

// crashFailure returns the first failure the bundle records as a crash
// ("Crash: App (4242) at f + 120"): the test process died in that test.
func crashFailure(s *TestSummary) *TestFailure {
	for i, f := range s.Failures {
		if strings.HasPrefix(f.Text, "Crash: ") {
			return &s.Failures[i]
		}
	}
	return nil
}
