package dump

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/postmortem/analysis"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

type openParams struct {
	Vmcore  string `json:"vmcore,omitempty"`
	Vmlinux string `json:"vmlinux,omitempty" jsonschema:"with debug info, matching vmcore"`
	Core    string `json:"core,omitempty"`
	Program string `json:"program,omitempty"`
	// ProjectDir is where relative paths of a local dump are (default:
	// triage's working directory).
	ProjectDir string              `json:"project_dir,omitempty"`
	SSHHost    string              `json:"ssh_host,omitempty" jsonschema:"run the engines there; paths are its own"`
	ExtraArgs  map[string][]string `json:"extra_args,omitempty" jsonschema:"e.g. {\"crash\": [\"--minimal\"]}"`
}

func (h *handler) open(ctx context.Context, c *catalog.Call, in openParams) (catalog.Result[wire.DumpSession], error) {
	t, err := analysis.Request(in).Target()
	if err != nil {
		return catalog.Result[wire.DumpSession]{}, err
	}
	o, err := analysis.Open(ctx, h.svc.Dumps(), t, in.ProjectDir)
	if err != nil {
		return catalog.Result[wire.DumpSession]{}, analysis.Classify(err)
	}
	out := wire.DumpSessionOf(o.Session)
	out.Reused = o.Reused
	return catalog.Result[wire.DumpSession]{Text: openText(o, out), Output: out}, nil
}

// openText says what was opened and, for a local process core, where it
// crashed; then the engines and the call that comes next.
func openText(o analysis.Opened, out wire.DumpSession) string {
	verb := "OPENED"
	if o.Reused {
		verb = "REUSED"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s\n", verb, out.SessionID, analysis.Describe(o.Session))
	if o.Crash != "" {
		// In the text only: tools/list's budget has no room for more
		// output fields, and dump_report has the structured backtrace.
		fmt.Fprintf(&b, "%s\nbacktrace:\n  %s\n", o.Crash, strings.Join(o.Frames, "\n  "))
	}
	fmt.Fprintf(&b, "engines: %s (started on first use; %s by default)\n", engineNames(o.Session.Engines()), out.Default)
	if o.Reused {
		fmt.Fprintf(&b, "references: %d (each dump_close releases one)\n", out.Refs)
	}
	fmt.Fprintf(&b, "next: %s\n", catalog.NextCall("dump_report", map[string]any{"session_id": out.SessionID}))
	return b.String()
}

func engineNames(es []postmortem.Engine) string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}
