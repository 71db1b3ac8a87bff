package xcode

import (
	"context"
	"fmt"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/textclip"
)

// NewBuildRequest checks a build's log level and time limit (timeoutS,
// else def) and returns the request to run action with them.
func NewBuildRequest(action Action, r Request, level string, timeoutS duration.Seconds, def time.Duration) (BuildRequest, error) {
	lv, err := logfilter.ParseLevel(level)
	if err != nil {
		return BuildRequest{}, fault.Usagef("level %q: use minimal, standard or verbose", level)
	}
	limit, err := timeoutS.Timeout(def, 0)
	if err != nil {
		return BuildRequest{}, err
	}
	return BuildRequest{Action: action, Request: r, Level: lv, Timeout: limit}, nil
}

// CheckBuild checks a build before it runs: its command, then, as that
// costs an xcodebuild -list, its scheme.
func CheckBuild(ctx context.Context, b BuildRequest) error {
	r := b.Request
	if b.Action == ActionTest {
		r.ResultBundlePath = "validate.xcresult" // what Build will set
	}
	if _, err := BuildCommand(b.Action, r); err != nil {
		return err
	}
	return CheckScheme(ctx, r.Workspace, r.Project, r.Scheme)
}

// LogSink is where a build's log is captured: the store, as the output of
// the call of Tool, with an excerpt of Budget bytes; Progress hears how it
// goes (lines so far, and a line to show).
type LogSink struct {
	Store    *store.Store
	Tool     string
	Budget   int
	Progress func(lines int64, msg string)
}

// Captured is a build's log, captured: Kept is what the store and the
// excerpt kept, the Capture is left to finish with the answer.
type Captured struct {
	*capture.Capture
	Kept capture.Result
}

// BuildCaptured runs b (Build) with its log captured into s.
func BuildCaptured(ctx context.Context, s LogSink, b BuildRequest) (*BuildOutcome, Captured, error) {
	var o *BuildOutcome
	c, err := s.capture(ctx, &b, "xcodebuild "+string(b.Action), func(func(string)) (err error) {
		o, err = Build(ctx, b)
		return err
	})
	return o, c, err
}

// BuildAndLaunchCaptured builds and launches (BuildAndLaunchOn) with the
// build's log captured into s, which also hears of the later stages.
func BuildAndLaunchCaptured(ctx context.Context, s LogSink, b BuildRequest, target string, l Launcher) (*BuildAndLaunchOutcome, Captured, error) {
	var o *BuildAndLaunchOutcome
	c, err := s.capture(ctx, &b, "building", func(notify func(string)) (err error) {
		o, err = BuildAndLaunchOn(ctx, b, target, l, notify)
		return err
	})
	return o, c, err
}

// capture opens b's output, points b's log and progress at it, runs run
// (telling it how to report a stage) and closes it; an output whose build
// could not be run is aborted.
func (s LogSink) capture(ctx context.Context, b *BuildRequest, what string, run func(notify func(string)) error) (Captured, error) {
	meta := store.Meta{Tool: s.Tool, Argv: []string{"xcodebuild", string(b.Action)}, Cwd: b.Request.Workspace + b.Request.Project}
	cp, err := capture.Open(ctx, s.Store, meta, capture.Options{Budget: s.Budget, Filtered: true})
	if err != nil {
		return Captured{}, err
	}
	b.Raw, b.RawID, b.Filtered = cp, cp.ID(), cp.Filtered()
	s.Progress = s.recorded(cp)
	b.Progress = func(p pipeline.Progress) {
		s.Progress(p.Lines, fmt.Sprintf("%s: %s, %s", what, textclip.Count(p.Lines, "line"), p.Elapsed.Round(time.Second)))
	}
	if err := run(func(msg string) { s.Progress(0, msg) }); err != nil {
		cp.Abort()
		return Captured{}, err
	}
	return Captured{Capture: cp, Kept: cp.Close()}, nil
}

// recorded is s's Progress that also keeps each line as the output's.
func (s LogSink) recorded(cp *capture.Capture) func(int64, string) {
	return func(lines int64, msg string) {
		s.Progress(lines, msg)
		cp.RecordProgress(msg)
	}
}

// LaunchOnDeviceConsole is LaunchOnDevice with the app's console captured
// into s.
func LaunchOnDeviceConsole(ctx context.Context, s LogSink, req DeviceLaunchRequest) (LaunchOutcome, Captured, error) {
	meta := store.Meta{Tool: s.Tool, Argv: []string{"devicectl", "device", "process", "launch", "--console", req.BundleID}}
	cp, err := capture.Open(ctx, s.Store, meta, capture.Options{Budget: s.Budget})
	if err != nil {
		return LaunchOutcome{}, Captured{}, err
	}
	req.Console = cp
	o := LaunchOnDevice(ctx, req)
	return o, Captured{Capture: cp, Kept: cp.Close()}, nil
}

// StoreStatus is how the store records a launch that ended with status.
func StoreStatus(status string) string {
	switch status {
	case "crashed":
		return "crash"
	case "failed":
		return "failure"
	}
	return "success"
}
