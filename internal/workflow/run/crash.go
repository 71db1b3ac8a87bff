package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/argpath"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/fault"
)

type crashListParams struct {
	SinceS     float64 `json:"since_s,omitempty" jsonschema:"only the last N seconds"`
	Process    string  `json:"process,omitempty" jsonschema:"program name"`
	ProjectDir string  `json:"project_dir,omitempty" jsonschema:"also search it for cores"`
	Limit      int     `json:"limit,omitempty" jsonschema:"default 50"`
}

// CrashList lists crash artifacts.
type CrashList struct {
	Artifacts []coredump.Artifact `json:"artifacts" jsonschema:"newest first"`
}

func (h *handler) crashList(ctx context.Context, c *catalog.Call, in crashListParams) (catalog.Result[CrashList], error) {
	in, err := defaults.MergeInto(in, h.svc.Defaults.Get(""), defaults.Requirements{})
	if err != nil {
		return catalog.Result[CrashList]{}, err
	}
	q := coredump.ListQuery{Process: in.Process, Limit: in.Limit}
	if in.SinceS > 0 {
		q.Since = time.Now().Add(-time.Duration(in.SinceS * float64(time.Second)))
	}
	// Cores with a relative core_pattern land in the crashing program's cwd:
	// look where programs ran.
	if wd, err := os.Getwd(); err == nil {
		q.Dirs = append(q.Dirs, wd)
	}
	if in.ProjectDir != "" {
		q.Dirs = append(q.Dirs, argpath.Resolve(in.ProjectDir, "", ""))
	}
	if m, err := h.svc.Jobs(ctx); err == nil {
		for _, j := range m.List() {
			q.Dirs = append(q.Dirs, j.Dir)
		}
	}
	if st, err := h.svc.Store(ctx); err == nil {
		if entries, err := st.List(ctx, 100); err == nil {
			for _, e := range entries {
				if e.Cwd != "" {
					q.Dirs = append(q.Dirs, e.Cwd)
				}
			}
		}
	}
	// And where triage keeps the cores it moved out of the user's tree.
	if st, err := h.svc.Store(ctx); err == nil {
		q.Kept = st.CoreDir("")
	}
	arts, err := coredump.List(ctx, q)
	if err != nil {
		return catalog.Result[CrashList]{}, err
	}
	if arts == nil {
		arts = []coredump.Artifact{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CRASH ARTIFACTS: %d\n", len(arts))
	for _, a := range arts {
		fmt.Fprintf(&b, "%s  %-11s %s", a.ModTime.Format("2006-01-02 15:04:05"), a.Kind, a.Path)
		if a.Note != "" {
			fmt.Fprintf(&b, " — %s", firstLine(a.Note))
		}
		b.WriteByte('\n')
	}
	if len(arts) > 0 {
		fmt.Fprintf(&b, "next: %s\n", catalog.NextCall("crash_report_show", map[string]any{"path": arts[0].Path}))
	}
	return catalog.Result[CrashList]{Text: b.String(), Output: CrashList{Artifacts: arts}}, nil
}

type crashShowParams struct {
	Path       string `json:"path"`
	Program    string `json:"program,omitempty" jsonschema:"the core's executable (default: as recorded)"`
	ProjectDir string `json:"project_dir,omitempty"`
}

// CrashShow summarises one artifact.
type CrashShow struct {
	Kind      string             `json:"kind" jsonschema:"core, vmcore, apple-crash-report, ..."`
	Summary   string             `json:"summary" jsonschema:"a few lines for a model"`
	Core      *coredump.CoreInfo `json:"core,omitempty" jsonschema:"what the core's notes say"`
	Backtrace *coredump.Trace    `json:"backtrace,omitempty" jsonschema:"crashing thread of a core"`
	Reports   []*coredump.Report `json:"reports,omitempty" jsonschema:"parsed Apple crash reports"`
}

func (h *handler) crashShow(ctx context.Context, c *catalog.Call, in crashShowParams) (catalog.Result[CrashShow], error) {
	if in.Path == "" {
		return catalog.Result[CrashShow]{}, fault.Usagef("path is required: a core file, .ips or .crash report (crash_report_list finds them)")
	}
	in.Path = argpath.Resolve(in.Path, "", in.ProjectDir)
	in.Program = argpath.Resolve(in.Program, "", in.ProjectDir)
	projectDir := argpath.Resolve(in.ProjectDir, "", "")
	if st, err := os.Stat(in.Path); err == nil && st.IsDir() {
		return catalog.Result[CrashShow]{}, fault.Usagef("%s is a directory: name a core file, .ips or .crash report in it (crash_report_list finds them)", in.Path)
	}
	kind, err := coredump.Identify(in.Path)
	if err != nil && !errors.Is(err, coredump.ErrUnrecognizedFormat) {
		return catalog.Result[CrashShow]{}, fault.Usagef("%s: %w", in.Path, err)
	}
	out := CrashShow{Kind: string(kind)}
	var b strings.Builder
	switch kind {
	case coredump.KindProcessCore:
		ci, err := coredump.OpenCore(in.Path)
		if err != nil {
			return catalog.Result[CrashShow]{}, fault.Usage(err)
		}
		out.Core = ci
		exe := in.Program
		if exe == "" {
			exe = ci.ExePath
		}
		fmt.Fprintf(&b, "CORE %s: %s\n", in.Path, firstLine(ci.Summary()))
		if tr, err := coredump.Backtrace(ctx, exe, in.Path, coredump.BacktraceOptions{}); err != nil {
			fmt.Fprintf(&b, "no backtrace: %v\n", err)
		} else {
			out.Backtrace = tr
			b.WriteString(tr.Summary(projectDir))
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "next: %s\n", catalog.NextCall("dump_open", map[string]any{"core": in.Path, "program": exe}))
	case coredump.KindAppleReport:
		f, err := os.Open(in.Path)
		if err != nil {
			return catalog.Result[CrashShow]{}, err
		}
		defer f.Close()
		reps, err := coredump.ParseReports(f)
		if err != nil {
			return catalog.Result[CrashShow]{}, fault.Usagef("%s: %w", in.Path, err)
		}
		out.Reports = reps
		fmt.Fprintf(&b, "CRASH REPORT %s: %d report(s)\n", in.Path, len(reps))
		for _, r := range reps {
			b.WriteString(r.Summary())
			b.WriteByte('\n')
		}
	case coredump.KindVmcore, coredump.KindKdumpCompact, coredump.KindKdumpFlat:
		fmt.Fprintf(&b, "KERNEL DUMP %s (%s): open it with %s\n", in.Path, kind,
			catalog.NextCall("dump_open", map[string]any{"vmcore": in.Path, "vmlinux": "/path/to/vmlinux"}))
	default:
		return catalog.Result[CrashShow]{}, fault.Usagef("%s is %s, not a core dump or crash report", in.Path, describeKind(kind))
	}
	out.Summary = b.String()
	return catalog.Result[CrashShow]{Text: out.Summary, Output: out}, nil
}

func describeKind(k coredump.FileKind) string {
	switch k {
	case coredump.KindExecutable:
		return "an executable (pass it as program, and the core as path)"
	case coredump.KindUnknown, "":
		return "not a file triage recognises"
	}
	return "a " + string(k) + " file"
}
