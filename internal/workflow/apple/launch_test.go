package apple

import (
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// TestRanOutcome: one rule for every launch and build and run: an app that
// launched, or a device's that ended without a crash report, is ok; a
// crash, a failure and any build status that stopped short are failed.
func TestRanOutcome(t *testing.T) {
	for status, want := range map[string]catalog.Outcome{
		"launched": catalog.OK, "exited": catalog.OK,
		"crashed": catalog.Failed, "failed": catalog.Failed, "succeeded": catalog.Failed, "timed_out": catalog.Failed, "silent_failure": catalog.Failed,
	} {
		if got := RanOutcome(status); got != want {
			t.Errorf("RanOutcome(%q) = %v, want %v", status, got, want)
		}
	}
}

// TestLaunchResult: the verdict first, each report's summary cut at 12
// lines with the call that shows it whole, the platform's part, and the
// next call only for an app that launched.
func TestLaunchResult(t *testing.T) {
	summary := strings.Repeat("frame\n", 20) + "last"
	reports := []wire.AppCrashReport{{Path: "/r/App.ips", Role: "app", Summary: summary}}
	r := LaunchResult(struct{}{}, "CRASHED: App", "crashed", reports, "console\n", "stop: app_stop {}")
	want := "CRASHED: App\ncrash report (app): /r/App.ips\n" + strings.Repeat("    frame\n", 12) + "    …\n" +
		"  more: crash_report_show {\"path\":\"/r/App.ips\"}\nconsole\n"
	if r.Text != want || r.Outcome != catalog.Failed {
		t.Errorf("crashed: %s %q\nwant %q", r.Outcome, r.Text, want)
	}
	r = LaunchResult(struct{}{}, "LAUNCHED App", "launched", nil, "", "stop: app_stop {}")
	if r.Text != "LAUNCHED App\nstop: app_stop {}\n" || r.Outcome != catalog.OK {
		t.Errorf("launched: %s %q", r.Outcome, r.Text)
	}
}
