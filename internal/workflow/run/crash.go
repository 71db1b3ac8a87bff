package run

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/argpath"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/verdict"
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
	arts, err := coredump.List(ctx, h.svc.CrashPlaces(ctx, argpath.Resolve(in.ProjectDir, "", "")).Query(
		in.Process, time.Duration(in.SinceS*float64(time.Second)), in.Limit))
	if err != nil {
		return catalog.Result[CrashList]{}, err
	}
	var b strings.Builder
	coredump.WriteArtifacts(&b, arts)
	if len(arts) > 0 {
		fmt.Fprintf(&b, "next: %s\n", catalog.NextCall("crash_report_show", map[string]any{"path": arts[0].Path}))
	}
	out := CrashList{Artifacts: append([]wire.Artifact{}, wire.ArtifactsOf(arts)...)}
	return catalog.Result[CrashList]{Text: b.String(), Output: out}, nil
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
	projectDir := argpath.Resolve(in.ProjectDir, "", "")
	s, err := coredump.Show(ctx, argpath.Resolve(in.Path, "", in.ProjectDir), argpath.Resolve(in.Program, "", in.ProjectDir), projectDir)
	if err != nil {
		return catalog.Result[CrashShow]{}, err
	}
	out := CrashShow{Kind: string(s.Kind), Core: wire.CoreInfoOf(s.Core), Reports: wire.CrashReportsOf(s.Reports)}
	if s.TraceErr == nil && s.Trace != nil {
		out.Backtrace = wire.TraceOf(s.Trace)
	}
	out.Summary = summary(s, projectDir)
	return catalog.Result[CrashShow]{Text: out.Summary, Output: out}, nil
}

// summary is the few lines that say what an artifact is: a core's notes,
// backtrace and the calls that open it; each crash report's summary; the
// call that opens a kernel dump.
func summary(s *coredump.Shown, projectDir string) string {
	var b strings.Builder
	switch {
	case s.Kernel():
		fmt.Fprintf(&b, "KERNEL DUMP %s (%s): open it with %s\n", s.Path, s.Kind,
			catalog.NextCall("dump_open", map[string]any{"vmcore": s.Path, "vmlinux": "/path/to/vmlinux"}))
	case s.Core != nil:
		fmt.Fprintf(&b, "CORE %s: %s\n", s.Path, verdict.FirstLine(s.Core.Summary()))
		writeTrace(&b, s, projectDir)
		writeCoreNext(&b, s.Path, s.Program, "")
	default:
		fmt.Fprintf(&b, "CRASH REPORT %s: %d report(s)\n", s.Path, len(s.Reports))
		for _, r := range s.Reports {
			b.WriteString(r.Summary())
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// writeTrace writes a core's backtrace and crash site, or why there is none.
func writeTrace(b *strings.Builder, s *coredump.Shown, projectDir string) {
	if s.TraceErr != nil {
		fmt.Fprintf(b, "no backtrace: %v\n", s.TraceErr)
		return
	}
	b.WriteString(s.Trace.Summary(projectDir))
	b.WriteByte('\n')
	s.Trace.Site.WriteText(b)
}
