package dump

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/postmortem"
)

type scriptsParams struct {
	sessionParam
	Name     string           `json:"name,omitempty" jsonschema:"omit to list the scripts"`
	Args     []string         `json:"args,omitempty" jsonschema:"its sys.argv[1:]"`
	TimeoutS duration.Seconds `json:"timeout_s,omitempty"`
}

// Script is a drgn script found in a configured directory.
type Script struct {
	Name        string `json:"name" jsonschema:"name to run it by"`
	Path        string `json:"path" jsonschema:"file"`
	Description string `json:"description,omitempty" jsonschema:"first line of its docstring or leading comment"`
}

// ScriptsOutput lists scripts, or reports one run.
type ScriptsOutput struct {
	Scripts []Script       `json:"scripts,omitempty" jsonschema:"scripts of dump.script_dirs (listing)"`
	Run     *CommandOutput `json:"run,omitempty" jsonschema:"the run of the named script"`
}

func (h *handler) scripts(ctx context.Context, c *catalog.Call, in scriptsParams) (catalog.Result[ScriptsOutput], error) {
	timeout, err := in.TimeoutS.Timeout(0, duration.CommandMax)
	if err != nil {
		return catalog.Result[ScriptsOutput]{}, err
	}
	dirs := h.svc.Config.Dump.ScriptDirs
	scripts := findScripts(dirs)
	if in.Name == "" {
		var b strings.Builder
		if len(dirs) == 0 {
			b.WriteString("no script directories: set dump.script_dirs in .triage/config.yaml\n")
		} else {
			fmt.Fprintf(&b, "%d drgn script(s) in %s\n", len(scripts), strings.Join(dirs, ", "))
		}
		for _, s := range scripts {
			fmt.Fprintf(&b, "  %s: %s\n", s.Name, s.Description)
		}
		return catalog.Result[ScriptsOutput]{Text: b.String(), Output: ScriptsOutput{Scripts: scripts}}, nil
	}
	name := strings.TrimSuffix(in.Name, ".py")
	var script *Script
	for i := range scripts {
		if scripts[i].Name == name {
			script = &scripts[i]
			break
		}
	}
	if script == nil {
		names := make([]string, len(scripts))
		for i, s := range scripts {
			names[i] = s.Name
		}
		return catalog.Result[ScriptsOutput]{}, fault.Usagef("no script %q in dump.script_dirs (have: %s)", in.Name, strings.Join(names, ", "))
	}
	s, err := h.session(in.SessionID)
	if err != nil {
		return catalog.Result[ScriptsOutput]{}, err
	}
	r, err := h.run(ctx, c.Tool, s, postmortem.Route{Engine: postmortem.EngineDrgn, Command: execscript(script.Path, in.Args), Reason: postmortem.RouteExplicit}, false, timeout)
	if err != nil {
		return catalog.Result[ScriptsOutput]{}, err
	}
	res := r.result()
	return catalog.Result[ScriptsOutput]{Text: res.Text, Output: ScriptsOutput{Run: &res.Output}, Outcome: res.Outcome}, nil
}

// execscript is the drgn code that runs path with args. JSON string literals
// are valid Python string literals, so no argument can break out of its quotes.
func execscript(path string, args []string) string {
	words := []string{quotePy(path)}
	for _, a := range args {
		words = append(words, quotePy(a))
	}
	return "execscript(" + strings.Join(words, ", ") + ")"
}

func quotePy(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// findScripts lists the *.py files of dirs; a name found twice is the first
// directory's.
func findScripts(dirs []string) []Script {
	seen := map[string]bool{}
	var out []Script
	for _, d := range dirs {
		paths, _ := filepath.Glob(filepath.Join(d, "*.py"))
		sort.Strings(paths)
		for _, p := range paths {
			name := strings.TrimSuffix(filepath.Base(p), ".py")
			if seen[name] {
				continue
			}
			seen[name] = true
			out = append(out, Script{Name: name, Path: p, Description: scriptDescription(p)})
		}
	}
	return out
}

// scriptDescription is the first line of the module docstring or of the
// leading comment block (after any #! line).
func scriptDescription(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 0; sc.Scan() && n < 20; n++ {
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "" || strings.HasPrefix(l, "#!") || strings.HasPrefix(l, "# -*-") || strings.HasPrefix(l, "# SPDX"):
			continue
		case strings.HasPrefix(l, "#"):
			return strings.TrimSpace(strings.TrimLeft(l, "#"))
		case strings.HasPrefix(l, `"""`) || strings.HasPrefix(l, "'''"):
			d := strings.Trim(l[3:], `"' `)
			if d == "" && sc.Scan() {
				d = strings.TrimSpace(sc.Text())
			}
			return d
		default:
			return ""
		}
	}
	return ""
}
