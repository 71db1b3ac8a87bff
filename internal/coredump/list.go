package coredump

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// ListQuery selects crash artifacts.
type ListQuery struct {
	// Since drops artifacts older than this (zero: no limit).
	Since time.Time
	// Process keeps artifacts of this program name (zero: all).
	Process string
	// Dirs are working directories where relative core_pattern cores land
	// (the directories programs ran in).
	Dirs []string
	// Limit bounds the result (0: 50), newest first.
	Limit int
	// Kept is where triage keeps the cores it moved out of users' trees
	// (one subdirectory per run, named by its output id); "" for none.
	Kept string
	// KeptRun, when set, keeps only the runs it accepts (the caller's own).
	KeptRun func(outputID string) bool
}

// Places are where the programs a crash may come from ran: cores with a
// relative core_pattern land in the crashing program's working directory.
type Places struct {
	// ProjectDir is the project's directory, "" when none was given.
	ProjectDir string
	// Ran are the directories programs ran in (background jobs', recent
	// runs').
	Ran []string
	// Kept is where triage keeps the cores it moved out of users' trees;
	// KeptRun, when set, keeps only the runs it accepts (the caller's own).
	Kept    string
	KeptRun func(outputID string) bool
}

// Query lists the artifacts of process ("" for all) from the last since
// (0 for all time), at most limit (0 for 50), looking in triage's own
// working directory, the project and where programs ran, each once.
func (p Places) Query(process string, since time.Duration, limit int) ListQuery {
	q := ListQuery{Process: process, Limit: limit, Kept: p.Kept, KeptRun: p.KeptRun}
	if since > 0 {
		q.Since = time.Now().Add(-since)
	}
	var dirs []string
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	if p.ProjectDir != "" {
		dirs = append(dirs, p.ProjectDir)
	}
	for _, d := range append(dirs, p.Ran...) {
		if d != "" && !slices.Contains(q.Dirs, d) {
			q.Dirs = append(q.Dirs, d)
		}
	}
	return q
}

// List finds crash artifacts on this machine: core files where core_pattern
// puts them, systemd-coredump's journal, apport's /var/crash, and macOS
// DiagnosticReports.
func List(ctx context.Context, q ListQuery) ([]Artifact, error) {
	var f Finder
	return f.List(ctx, q)
}

// List is the Finder form of List.
func (f *Finder) List(ctx context.Context, q ListQuery) ([]Artifact, error) {
	var out []Artifact
	switch f.goos() {
	case "darwin":
		for _, d := range f.reportDirs() {
			out = append(out, scanDir(d, q, func(name string) bool {
				return strings.HasSuffix(name, ".ips") || strings.HasSuffix(name, ".crash")
			}, "ips")...)
		}
	case "linux":
		raw, _ := os.ReadFile(filepath.Join(f.procSys(), "kernel", "core_pattern"))
		pat := parseCorePattern(string(raw))
		switch {
		case pat.pipe && strings.Contains(pat.raw, "systemd-coredump"):
			out = append(out, listCoredumpctl(ctx, q)...)
		case pat.pipe && strings.Contains(pat.raw, "apport"):
			out = append(out, scanDir(f.crashDir(), q, func(n string) bool { return strings.HasSuffix(n, ".crash") }, "apport")...)
		case !pat.pipe && pat.raw != "":
			dirs := q.Dirs
			if filepath.IsAbs(pat.raw) {
				dirs = []string{filepath.Dir(pat.raw)}
			}
			match := patternGlob(filepath.Base(pat.raw))
			for _, d := range uniq(dirs) {
				out = append(out, scanDir(d, q, match, "core")...)
			}
		}
	}
	if q.Kept != "" {
		runs, _ := os.ReadDir(q.Kept)
		for _, r := range runs {
			if r.IsDir() && (q.KeptRun == nil || q.KeptRun(r.Name())) {
				out = append(out, scanDir(filepath.Join(q.Kept, r.Name()), q, func(string) bool { return true }, "core")...)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ModTime.After(out[j].ModTime) })
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// patternGlob turns a core_pattern file name into a matcher: specifiers match
// anything, and ".PID" may follow (core_uses_pid).
func patternGlob(base string) func(string) bool {
	return regexp.MustCompile(patternNameRE(base)).MatchString
}

// patternNameRE is patternGlob's expression, in the syntax RE2 and Perl
// share (a host's search runs it in Perl).
func patternNameRE(base string) string {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(base); i++ {
		if base[i] == '%' && i+1 < len(base) {
			b.WriteString(".*")
			i++
			continue
		}
		b.WriteString(regexp.QuoteMeta(base[i : i+1]))
	}
	b.WriteString(`(\.\d+)?$`)
	return b.String()
}

// scanDir lists the files of dir that match, are new enough, and (for cores)
// really are process cores of the wanted program.
func scanDir(dir string, q ListQuery, match func(string) bool, kind string) []Artifact {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Artifact
	for _, e := range entries {
		if !e.Type().IsRegular() || !match(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || (!q.Since.IsZero() && info.ModTime().Before(q.Since)) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		a := Artifact{Kind: kind, Path: path, Size: info.Size(), ModTime: info.ModTime()}
		switch kind {
		case "core":
			ci, err := OpenCore(path)
			if err != nil {
				continue // not a core after all
			}
			if q.Process != "" && ci.Program != q.Process && filepath.Base(ci.ExePath) != q.Process {
				continue
			}
			a.Note = ci.Summary()
		default:
			if q.Process != "" && !strings.Contains(e.Name(), q.Process) {
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// listCoredumpctl asks systemd-coredump for the dumps it kept.
func listCoredumpctl(ctx context.Context, q ListQuery) []Artifact {
	argv := []string{"coredumpctl", "list", "--no-pager", "--json=short"}
	if !q.Since.IsZero() {
		argv = append(argv, "--since=@"+strconv.FormatInt(q.Since.Unix(), 10))
	}
	if q.Process != "" {
		argv = append(argv, q.Process)
	}
	var out bytes.Buffer
	res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Stdout: &out, Timeout: 15 * time.Second})
	if err != nil || !res.Success() {
		return nil
	}
	var rows []struct {
		Time     int64  `json:"time"` // microseconds
		Pid      int    `json:"pid"`
		Sig      int    `json:"sig"`
		Exe      string `json:"exe"`
		Corefile string `json:"corefile"`
	}
	if json.Unmarshal(out.Bytes(), &rows) != nil {
		return nil
	}
	var arts []Artifact
	for _, r := range rows {
		arts = append(arts, Artifact{Kind: "coredumpctl", Path: r.Exe, ModTime: time.UnixMicro(r.Time),
			Note: fmt.Sprintf("pid %d, %s, core %s (coredumpctl dump %d)", r.Pid, SignalName(r.Sig), r.Corefile, r.Pid)})
	}
	return arts
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
