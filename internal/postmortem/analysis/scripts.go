package analysis

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/postmortem"
)

// Script is a drgn script found in a configured directory.
type Script struct {
	Name        string // the file's name without .py, to run it by
	Path        string
	Description string // first line of its docstring or leading comment
}

// FindScripts lists the *.py files of dirs; a name found twice is the first
// directory's.
func FindScripts(dirs []string) []Script {
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

// FindScript is the script of dirs called name (".py" optional); a name
// none has is a usage error that lists the names there are.
func FindScript(dirs []string, name string) (Script, error) {
	scripts := FindScripts(dirs)
	want := strings.TrimSuffix(name, ".py")
	names := make([]string, len(scripts))
	for i, s := range scripts {
		if s.Name == want {
			return s, nil
		}
		names[i] = s.Name
	}
	return Script{}, fault.Usagef("no script %q in dump.script_dirs (have: %s)", name, strings.Join(names, ", "))
}

// RunScript runs script on c.Session's drgn with args as its sys.argv[1:],
// through the cache like any drgn command.
func (a *Analyst) RunScript(ctx context.Context, c Call, script Script, args []string) (Result, error) {
	return a.Run(ctx, c, postmortem.Route{Engine: postmortem.EngineDrgn, Command: execscript(script.Path, args), Reason: postmortem.RouteExplicit})
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
