package xcode

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/spawn"
)

// Bounds of the rerun of a failed test with coverage.
const (
	rerunLimit    = 3 * time.Minute // within the run's own deadline; it builds first
	maxRerunTail  = 400             // bytes of its output kept to explain a failure
	rerunBundle   = "Failed.xcresult"
	rerunTempName = "triage-xcresult-failed-"
)

// failedPath reruns the first failed test of a failed coverage run alone
// (-only-testing: its identifier), with coverage into a result bundle of
// its own, and keeps what it ran of the project's own code (xccov's
// archive of that bundle, every file's lines) in the run's report
// (FailedPath), or why it could not (PathError), as the other
// toolchains' runs do (internal/pipeline).
func (o *BuildOutcome) failedPath(ctx context.Context, action Action, r Request, dir string) {
	if o.Status.OK() || o.Coverage == nil {
		return
	}
	first, others := firstFailure(o.Summary)
	switch {
	case first == nil:
		o.Coverage.PathError = "the result bundle names no failed test, so none was rerun alone"
		return
	case first.Identifier == "":
		o.Coverage.PathError = fmt.Sprintf("the result bundle gives %s no identifier (Target/Class/method), so it was not rerun alone", first.TestName)
		return
	}
	rep, err := rerunAlone(ctx, action, r, onlyTestingID(first.Identifier), dir)
	if err != nil {
		o.Coverage.PathError = fmt.Sprintf("rerunning %s alone with coverage: %v", first.Identifier, err)
		return
	}
	p := rep.PathOf(first.Identifier)
	p.OtherFailed, p.At = others, first.Location
	o.Coverage.FailedPath = p
}

// firstFailure is the summary's first failed test and how many other
// tests failed (a test may fail more than once).
func firstFailure(s *TestSummary) (*TestFailure, int) {
	if s == nil || len(s.Failures) == 0 {
		return nil, 0
	}
	seen := map[string]bool{}
	for _, f := range s.Failures {
		seen[f.Target+"\x00"+f.Identifier+"\x00"+f.TestName] = true
	}
	return &s.Failures[0], len(seen) - 1
}

// onlyTestingID is how -only-testing names a test the result bundle
// identifies as Target/Class/method(): an XCTest method (its name begins
// with "test") without the parentheses, a Swift Testing function with
// them.
func onlyTestingID(id string) string {
	if m := path.Base(id); strings.HasPrefix(m, "test") && strings.HasSuffix(m, "()") {
		return strings.TrimSuffix(id, "()")
	}
	return id
}

// rerunAlone runs the action again for the one test, with coverage, and
// reads the lines it ran from its result bundle, which is removed after.
func rerunAlone(ctx context.Context, action Action, r Request, id, dir string) (*coverage.Report, error) {
	tmp, err := os.MkdirTemp("", rerunTempName)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	r.OnlyTesting, r.SkipTesting, r.Coverage = []string{id}, nil, true
	r.ResultBundlePath = filepath.Join(tmp, rerunBundle)
	cmd, err := BuildCommand(action, r)
	if err != nil {
		return nil, err
	}
	timeout := rerunLimit
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl))
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("the run's time limit was reached")
	}
	tail := &limitedBuffer{max: maxRerunTail, keepTail: true}
	res, err := spawn.Run(ctx, spawn.Spec{Argv: cmd.Argv, Env: cmd.Env, Dir: containerDir(r), Timeout: timeout, Stdout: tail, Stderr: tail})
	if err != nil {
		return nil, err
	}
	ended := strings.ToValidUTF8(strings.TrimSpace(tail.String()), "")
	if res.TimedOut {
		return nil, fmt.Errorf("xcodebuild timed out after %s; its output ended: %s", timeout, ended)
	}
	if _, err := os.Stat(r.ResultBundlePath); err != nil {
		return nil, fmt.Errorf("xcodebuild (%s) wrote no result bundle; its output ended: %s", res, ended)
	}
	archive, err := ArchiveCommand(r.ResultBundlePath, "")
	if err != nil {
		return nil, err
	}
	out, err := Run(ctx, archive, 0)
	if err != nil {
		return nil, err
	}
	return coverage.ReadXccovArchive(out, dir)
}
