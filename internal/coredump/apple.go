package coredump

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// reportDirs are where macOS's ReportCrash writes crash reports: the user's
// own, then the system-wide directory (for root and some daemons).
func (f *Finder) reportDirs() []string {
	if len(f.ReportDirs) > 0 {
		return f.ReportDirs
	}
	var dirs []string
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, "Library", "Logs", "DiagnosticReports"))
	}
	return append(dirs, "/Library/Logs/DiagnosticReports")
}

// findAppleReports looks for a crash report newer than the run, whose file
// name starts with the process name and whose content names the same
// process (and pid, when the report records it). ReportCrash writes
// reports a moment after the process died, so this polls.
func (f *Finder) findAppleReports(ctx context.Context, c Crash) ([]Artifact, error) {
	name := filepath.Base(c.Exe)
	if name == "" || name == "." {
		return nil, &NoCoreError{Reason: "the crash names no executable to match reports against"}
	}
	arts, err := f.poll(ctx, func() ([]Artifact, error) {
		var arts []Artifact
		for _, dir := range f.reportDirs() {
			arts = append(arts, scanReportDir(dir, name, c)...)
		}
		slices.SortFunc(arts, func(a, b Artifact) int { return b.ModTime.Compare(a.ModTime) })
		return arts, nil
	})
	if err != nil || len(arts) > 0 {
		return arts, err
	}
	return nil, &NoCoreError{Reason: fmt.Sprintf("no crash report for %s (pid %d) appeared in %s within %v",
		name, c.Pid, strings.Join(f.reportDirs(), " or "), f.wait())}
}

func scanReportDir(dir, name string, c Crash) []Artifact {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var arts []Artifact
	for _, e := range entries {
		fn := e.Name()
		kind := strings.TrimPrefix(filepath.Ext(fn), ".")
		if kind != "ips" && kind != "crash" || !reportNameMatches(fn, name) {
			continue
		}
		info, err := e.Info()
		if err != nil || !c.Started.IsZero() && info.ModTime().Before(c.Started.Add(-time.Second)) {
			continue
		}
		path := filepath.Join(dir, fn)
		art := Artifact{Kind: kind, Path: path, Size: info.Size(), ModTime: info.ModTime()}
		if rep, ok := reportFor(path, name, c.Pid); ok {
			art.Note = rep.Summary()
		} else {
			continue
		}
		arts = append(arts, art)
	}
	return arts
}

// reportNameMatches accepts "Name-2024-01-02-030405.ips", "Name_2016-...crash"
// and "Name.ips" for process Name.
func reportNameMatches(file, name string) bool {
	rest, ok := strings.CutPrefix(file, name)
	return ok && rest != "" && strings.ContainsRune("-_.", rune(rest[0]))
}

// reportFor parses path and checks it is name's report (and pid's, if both
// are known). An unparsable report that matched by name still counts.
func reportFor(path, name string, pid int) (*Report, bool) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer fh.Close()
	rep, err := ParseReport(fh)
	if err != nil {
		return &Report{Process: name, CrashedThread: -1, ASI: []string{"unreadable report: " + err.Error()}}, true
	}
	if rep.Process != "" && rep.Process != name && commName(rep.Process) != commName(name) {
		return nil, false
	}
	if pid > 0 && rep.Pid > 0 && rep.Pid != pid {
		return nil, false
	}
	return rep, true
}
