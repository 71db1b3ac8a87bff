package bisect

import (
	"fmt"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
	"github.com/triage-dev/triage/internal/verdict"
)

// The kinds of failure a step can show.
const (
	KindTests   = "tests failed"
	KindCrash   = "crashed"
	KindTimeout = "timed out"
	KindFailed  = "failed"       // a run's failing exit, a silent failure
	KindBuild   = "build failed" // judged only when the build is what is bisected
)

// Failure is what a step's verdict says failed: its kind and where (the
// failing tests, the crash's function, the files with errors, a run's
// exit status). The failure sought is the bad revision's.
type Failure struct {
	Kind  string   `json:"kind"`
	Sites []string `json:"sites,omitempty"`
}

// String is the failure as the answer names it: "tests failed: TestAdd".
func (f Failure) String() string {
	if len(f.Sites) == 0 {
		return f.Kind
	}
	return f.Kind + ": " + strings.Join(f.Sites, ", ")
}

// Matches reports whether g is the failure f: the same kind, and a site
// in common when both name sites (a failing test of f's among g's, the
// same crash function).
func (f Failure) Matches(g Failure) bool {
	if f.Kind != g.Kind {
		return false
	}
	if len(f.Sites) == 0 || len(g.Sites) == 0 {
		return true
	}
	return slices.ContainsFunc(g.Sites, func(s string) bool { return slices.Contains(f.Sites, s) })
}

// outcome is what one step's verdict comes to before it is judged: passed
// (nil failure, no skip), a failure, or a reason it cannot be judged.
type outcome struct {
	failure *Failure
	skip    string
}

// mark judges o against the failure sought (nil: any failure is bad),
// and says why when it is skipped.
func (o outcome) mark(sought *Failure) (Mark, string) {
	switch {
	case o.skip != "":
		return Skip, o.skip
	case o.failure == nil:
		return Good, ""
	case sought == nil || sought.Matches(*o.failure):
		return Bad, ""
	}
	return Skip, "another failure (" + o.failure.String() + ")"
}

// maxSites bounds the sites a failure keeps (a run of many failing tests).
const maxSites = 20

// testOutcome is a test run's outcome: a build that failed, no test run,
// is no verdict on the tests.
func testOutcome(res *pipeline.Result) outcome {
	switch res.Status {
	case pipeline.Succeeded:
		return outcome{}
	case pipeline.Interrupted:
		return outcome{skip: "interrupted"}
	}
	if f := res.Failed; f != nil && f.Step.Name != toolchain.StepTest && res.Status != pipeline.TimedOut {
		return outcome{skip: "the " + f.Step.Name + " step failed"}
	}
	var failing []string
	if res.Report != nil {
		for _, c := range res.Report.Failures() {
			failing = appendSite(failing, testName(c))
		}
	}
	switch res.Status {
	case pipeline.NoTests:
		return outcome{skip: "no tests ran"}
	case pipeline.Crashed:
		return outcome{failure: &Failure{Kind: KindCrash, Sites: crashSites(res.Crash, failing)}}
	case pipeline.TimedOut:
		return outcome{failure: &Failure{Kind: KindTimeout, Sites: failing}}
	case pipeline.SilentFailure:
		return outcome{failure: &Failure{Kind: KindFailed}}
	}
	switch {
	case len(failing) == 0 && buildBroke(res):
		return outcome{skip: "the build failed"}
	case len(failing) == 0:
		return outcome{failure: &Failure{Kind: KindFailed}} // a run cut short, a runner's error
	}
	return outcome{failure: &Failure{Kind: KindTests, Sites: failing}}
}

// buildBroke reports whether the test run's build failed (compiler or
// linker errors, a package whose tests did not build).
func buildBroke(res *pipeline.Result) bool {
	return res.Log.Errors+res.Log.LinkerErrors > 0 || res.Report != nil && len(res.Report.BuildErrors) > 0
}

// crashSites names a test crash by its function (the crashing frame in
// the project's code) and its test.
func crashSites(c *pipeline.TestCrash, failing []string) []string {
	if c == nil {
		return failing
	}
	var sites []string
	if c.Frame != nil && c.Frame.Function != "" {
		sites = appendSite(sites, c.Frame.Function)
	}
	if c.Test != "" {
		sites = appendSite(sites, c.Test)
	}
	if len(sites) == 0 {
		return failing
	}
	return sites
}

// buildOutcome is a build's outcome when the build is what is bisected:
// its failure named by the files its errors are in.
func buildOutcome(res *pipeline.Result) outcome {
	switch res.Status {
	case pipeline.Succeeded:
		return outcome{}
	case pipeline.Interrupted:
		return outcome{skip: "interrupted"}
	case pipeline.Crashed:
		return outcome{failure: &Failure{Kind: KindCrash}}
	case pipeline.TimedOut:
		return outcome{failure: &Failure{Kind: KindTimeout}}
	}
	f := &Failure{Kind: KindBuild}
	for _, d := range res.Log.Diagnostics {
		if d.Kind >= logfilter.KindError && d.File != "" {
			f.Sites = appendSite(f.Sites, d.File)
		}
	}
	return outcome{failure: f}
}

// runOutcome is a program run's outcome: a crash named by its function
// (else its signal), a failing exit by its status.
func runOutcome(o *capture.Outcome, projectDir string) outcome {
	v := o.Verdict
	switch v.Status {
	case verdict.StatusSuccess:
		return outcome{}
	case verdict.StatusInterrupted:
		return outcome{skip: "interrupted"}
	case verdict.StatusCrash:
		return outcome{failure: &Failure{Kind: KindCrash, Sites: runCrashSites(o, projectDir)}}
	case verdict.StatusTimeout:
		return outcome{failure: &Failure{Kind: KindTimeout}}
	case verdict.StatusSilentFailure:
		return outcome{failure: &Failure{Kind: KindFailed}}
	}
	return outcome{failure: &Failure{Kind: KindFailed, Sites: []string{fmt.Sprintf("exit %d", v.ExitCode)}}}
}

// runCrashSites is a crashed run's function: its crash site's, else the
// crashing frame of its backtrace; else its signal.
func runCrashSites(o *capture.Outcome, projectDir string) []string {
	switch {
	case o.Site != nil && o.Site.Function != "":
		return []string{o.Site.Function}
	case o.Verdict.CrashFrame != nil && o.Verdict.CrashFrame.Function != "":
		return []string{o.Verdict.CrashFrame.Function}
	case o.Trace != nil:
		if f, ok := o.Trace.Crashing(projectDir); ok && f.Function != "" {
			return []string{f.Function}
		}
	}
	if o.Verdict.Signal != "" {
		return []string{o.Verdict.Signal}
	}
	return nil
}

// testName is a case's name with its suite (a Go package, a test
// binary), as a crashed test is named: a name alone may be two tests'.
func testName(c testreport.Case) string {
	if c.Suite == "" || strings.HasPrefix(c.Name, c.Suite) {
		return c.Name
	}
	return c.Suite + "/" + c.Name
}

func appendSite(sites []string, s string) []string {
	if len(sites) >= maxSites || slices.Contains(sites, s) {
		return sites
	}
	return append(sites, s)
}
