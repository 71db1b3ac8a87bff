package xcode

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
)

// CrashReport is a crash report correlated with a run.
type CrashReport struct {
	Path    string `json:"path"`
	Process string `json:"process"`
	Pid     int    `json:"pid,omitempty"`
	// Exception is "EXC_BAD_ACCESS (SIGSEGV)" and the like.
	Exception string `json:"exception,omitempty"`
	// Summary is coredump's few-line summary: who, how, where, why.
	Summary string `json:"summary"`
	// Role says why the report belongs to the run: "app", "test runner",
	// "testmanagerd" or "simulator".
	Role string `json:"role"`
}

// infrastructure are processes of the test and simulator machinery whose
// crash explains a failed or strange run, with the role they play.
var infrastructure = []struct {
	match func(string) bool
	role  string
}{
	{func(p string) bool { return strings.HasPrefix(p, "xctest") }, "test runner"},
	{func(p string) bool { return strings.HasSuffix(p, "-Runner") || p == "XCTRunner" }, "test runner"},
	{func(p string) bool { return p == "testmanagerd" }, "testmanagerd"},
	{func(p string) bool {
		return p == "launchd_sim" || p == "Simulator" || p == "SimulatorTrampoline" || strings.HasPrefix(p, "CoreSimulator")
	}, "simulator"},
}

// maxReports bounds the reports attached to one result.
const maxReports = 5

// Correlate returns the crash reports written since since (a second of
// slack for coarse modification times) by the named apps or by the test and
// simulator machinery, newest first. dirs replace the DiagnosticReports
// directories (nil: the user's and the system's, macOS only).
func Correlate(ctx context.Context, dirs []string, since time.Time, apps []string) []CrashReport {
	f := coredump.Finder{ReportDirs: dirs}
	if len(dirs) > 0 {
		f.GOOS = "darwin" // the directories are given: scan them anywhere
	}
	arts, err := f.List(ctx, coredump.ListQuery{Since: since.Add(-time.Second), Limit: 50})
	if err != nil {
		return nil
	}
	var out []CrashReport
	for _, a := range arts {
		if a.Kind != "ips" && a.Kind != "crash" && !isReportFile(a.Path) {
			continue
		}
		for _, rep := range readReports(a.Path) {
			role := roleOf(rep.Process, apps)
			if role == "" {
				continue
			}
			out = append(out, CrashReport{
				Path: a.Path, Process: rep.Process, Pid: rep.Pid,
				Exception: exception(rep), Summary: strings.TrimSpace(rep.Summary()), Role: role,
			})
			break
		}
		if len(out) == maxReports {
			break
		}
	}
	return out
}

func isReportFile(path string) bool {
	ext := filepath.Ext(path)
	return ext == ".ips" || ext == ".crash"
}

func readReports(path string) []*coredump.Report {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	reps, err := coredump.ParseReports(f)
	if err != nil {
		return nil
	}
	return reps
}

func roleOf(process string, apps []string) string {
	if process == "" {
		return ""
	}
	if slices.Contains(apps, process) {
		return "app"
	}
	for _, i := range infrastructure {
		if i.match(process) {
			return i.role
		}
	}
	return ""
}

func exception(r *coredump.Report) string {
	switch {
	case r.ExceptionType != "" && r.Signal != "" && !strings.Contains(r.ExceptionType, r.Signal):
		return r.ExceptionType + " (" + r.Signal + ")"
	case r.ExceptionType != "":
		return r.ExceptionType
	}
	return r.Signal
}
