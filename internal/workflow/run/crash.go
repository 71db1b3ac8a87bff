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
	"github.com/triage-dev/triage/internal/workflow/wire"
)

type crashListParams struct {
	SinceS     float64 `json:"since_s,omitempty" jsonschema:"only the last N seconds"`
	Process    string  `json:"process,omitempty" jsonschema:"program name"`
	ProjectDir string  `json:"project_dir,omitempty" jsonschema:"also search it for cores"`
	Limit      int     `json:"limit,omitempty" jsonschema:"default 50"`
}

// CrashList lists crash artifacts.
type CrashList struct {
	Artifacts []wire.Artifact `json:"artifacts" jsonschema:"newest first"`
}

func (h *handler) crashList(ctx context.Context, c *catalog.Call, in crashListParams) (catalog.Result[CrashList], error) {
	in, err := defaults.MergeInto(in, h.svc.Defaults.For(ctx).Get(""), defaults.Requirements{})
	if err != nil {
		return catalog.Result[CrashList]{}, err
	}
	arts, err := coredump.List(ctx, h.crashQuery(ctx, in))
	if err != nil {
		return catalog.Result[CrashList]{}, err
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
	out := CrashList{Artifacts: append([]wire.Artifact{}, wire.ArtifactsOf(arts)...)}
	return catalog.Result[CrashList]{Text: b.String(), Output: out}, nil
}

// crashQuery looks where programs ran (the project, background jobs',
// recent runs') and where triage keeps the cores it moved out of the
// user's tree.
func (h *handler) crashQuery(ctx context.Context, in crashListParams) coredump.ListQuery {
	p := coredump.Places{ProjectDir: argpath.Resolve(in.ProjectDir, "", "")}
	if m, err := h.svc.Jobs(ctx); err == nil {
		for _, j := range m.List(ctx) {
			p.Ran = append(p.Ran, j.Dir)
		}
	}
	if st, err := h.svc.Store(ctx); err == nil {
		p.Kept, p.KeptRun = st.CoreDir(""), st.Visible(ctx)
		entries, _ := st.List(ctx, 100)
		for _, e := range entries {
			p.Ran = append(p.Ran, e.Cwd)
		}
	}
	return p.Query(in.Process, time.Duration(in.SinceS*float64(time.Second)), in.Limit)
}

type crashShowParams struct {
	Path       string `json:"path"`
	Program    string `json:"program,omitempty" jsonschema:"the core's executable (default: as recorded)"`
	ProjectDir string `json:"project_dir,omitempty"`
}

// CrashShow summarises one artifact.
type CrashShow struct {
	Kind      string              `json:"kind" jsonschema:"core, vmcore, apple-crash-report, ..."`
	Summary   string              `json:"summary" jsonschema:"a few lines for a model"`
	Core      *wire.CoreInfo      `json:"core,omitempty" jsonschema:"what the core's notes say"`
	Backtrace *wire.Trace         `json:"backtrace,omitempty" jsonschema:"crashing thread of a core"`
	Reports   []*wire.CrashReport `json:"reports,omitempty" jsonschema:"parsed Apple crash reports"`
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
	if err := show(ctx, &out, kind, in.Path, in.Program, projectDir); err != nil {
		return catalog.Result[CrashShow]{}, err
	}
	return catalog.Result[CrashShow]{Text: out.Summary, Output: out}, nil
}

// show summarises an artifact of the given kind into out.
func show(ctx context.Context, out *CrashShow, kind coredump.FileKind, path, program, projectDir string) error {
	switch kind {
	case coredump.KindProcessCore:
		return showCore(ctx, out, path, program, projectDir)
	case coredump.KindAppleReport:
		return showReports(out, path)
	case coredump.KindVmcore, coredump.KindKdumpCompact, coredump.KindKdumpFlat:
		out.Summary = fmt.Sprintf("KERNEL DUMP %s (%s): open it with %s\n", path, kind,
			catalog.NextCall("dump_open", map[string]any{"vmcore": path, "vmlinux": "/path/to/vmlinux"}))
		return nil
	}
	return fault.Usagef("%s is %s, not a core dump or crash report", path, describeKind(kind))
}

// showCore summarises a process core: its notes, the crashing thread's
// backtrace, and the call that opens it.
func showCore(ctx context.Context, out *CrashShow, path, program, projectDir string) error {
	ci, err := coredump.OpenCore(path)
	if err != nil {
		return fault.Usage(err)
	}
	out.Core = wire.CoreInfoOf(ci)
	if program == "" {
		program = ci.ExePath
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CORE %s: %s\n", path, firstLine(ci.Summary()))
	if tr, err := coredump.Backtrace(ctx, program, path, coredump.BacktraceOptions{ProjectDir: projectDir}); err != nil {
		fmt.Fprintf(&b, "no backtrace: %v\n", err)
	} else {
		out.Backtrace = wire.TraceOf(tr)
		b.WriteString(tr.Summary(projectDir))
		b.WriteByte('\n')
		writeSite(&b, tr.Site)
	}
	writeCoreNext(&b, path, program, "")
	out.Summary = b.String()
	return nil
}

// showReports summarises the Apple crash reports of one file.
func showReports(out *CrashShow, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	reps, err := coredump.ParseReports(f)
	if err != nil {
		return fault.Usagef("%s: %w", path, err)
	}
	out.Reports = wire.CrashReportsOf(reps)
	var b strings.Builder
	fmt.Fprintf(&b, "CRASH REPORT %s: %d report(s)\n", path, len(reps))
	for _, r := range reps {
		b.WriteString(r.Summary())
		b.WriteByte('\n')
	}
	out.Summary = b.String()
	return nil
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
