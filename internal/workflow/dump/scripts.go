package dump

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/postmortem/analysis"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

type scriptsParams struct {
	sessionParam
	Name     string           `json:"name,omitempty" jsonschema:"omit to list the scripts"`
	Args     []string         `json:"args,omitempty" jsonschema:"its sys.argv[1:]"`
	TimeoutS duration.Seconds `json:"timeout_s,omitempty"`
}

// ScriptsOutput lists scripts, or reports one run.
type ScriptsOutput struct {
	Scripts []wire.DrgnScript `json:"scripts,omitempty" jsonschema:"scripts of dump.script_dirs (listing)"`
	Run     *wire.DumpCommand `json:"run,omitempty" jsonschema:"the run of the named script"`
}

func (h *handler) scripts(ctx context.Context, c *catalog.Call, in scriptsParams) (catalog.Result[ScriptsOutput], error) {
	if _, err := in.TimeoutS.Timeout(0, duration.CommandMax); err != nil {
		return catalog.Result[ScriptsOutput]{}, err
	}
	if in.Name == "" {
		return listScripts(h.svc.Config.Dump.ScriptDirs), nil
	}
	return h.runScript(ctx, c, in)
}

func (h *handler) runScript(ctx context.Context, c *catalog.Call, in scriptsParams) (catalog.Result[ScriptsOutput], error) {
	script, err := analysis.FindScript(h.svc.Config.Dump.ScriptDirs, in.Name)
	if err != nil {
		return catalog.Result[ScriptsOutput]{}, err
	}
	call, err := h.call(ctx, c, in.SessionID, false, in.TimeoutS)
	if err != nil {
		return catalog.Result[ScriptsOutput]{}, err
	}
	r, err := h.analyst.RunScript(ctx, call, script, in.Args)
	if err != nil {
		return catalog.Result[ScriptsOutput]{}, analysis.Classify(err)
	}
	res := commandResult(call.Session.ID, r)
	return catalog.Result[ScriptsOutput]{Text: res.Text, Output: ScriptsOutput{Run: &res.Output}, Outcome: res.Outcome}, nil
}

func listScripts(dirs []string) catalog.Result[ScriptsOutput] {
	scripts := analysis.FindScripts(dirs)
	text := scriptsHead(dirs, len(scripts))
	for _, s := range scripts {
		text += fmt.Sprintf("  %s: %s\n", s.Name, s.Description)
	}
	return catalog.Result[ScriptsOutput]{Text: text, Output: ScriptsOutput{Scripts: wire.DrgnScriptsOf(scripts)}}
}

func scriptsHead(dirs []string, n int) string {
	if len(dirs) == 0 {
		return "no script directories: set dump.script_dirs in .triage/config.yaml\n"
	}
	return fmt.Sprintf("%d drgn script(s) in %s\n", n, strings.Join(dirs, ", "))
}
