package xcode

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/fault"
)

type discoverParams struct {
	Dir        string `json:"dir,omitempty" jsonschema:"directory to search (default: project_dir)"`
	ProjectDir string `json:"project_dir,omitempty" jsonschema:"project directory (session default)"`
	MaxDepth   int    `json:"max_depth,omitempty" jsonschema:"levels to descend (default 4, max 10)"`
}

// DiscoverOutput lists what was found.
type DiscoverOutput struct {
	Workspaces []string `json:"workspaces" jsonschema:".xcworkspace paths, shallowest first"`
	Projects   []string `json:"projects" jsonschema:".xcodeproj paths, shallowest first"`
	Truncated  bool     `json:"truncated,omitempty" jsonschema:"more than the listed maximum were found"`
}

// maxFound bounds each list.
const maxFound = 100

// skipDirs are never descended into: build output and dependencies hold
// bundles that are not the user's project.
var skipDirs = map[string]bool{"DerivedData": true, "Pods": true, ".build": true, "Carthage": true, "node_modules": true, ".git": true, "build": true}

func (h *handler) discover(ctx context.Context, c *catalog.Call, in discoverParams) (catalog.Result[DiscoverOutput], error) {
	var zero catalog.Result[DiscoverOutput]
	dir := in.Dir
	if dir == "" {
		dir = in.ProjectDir
	}
	if dir == "" {
		return zero, fault.Usagef("dir is required (or set project_dir with session_set_defaults)")
	}
	if in.MaxDepth < 0 || in.MaxDepth > 10 {
		return zero, fault.Usagef("max_depth %d: use 1 to 10", in.MaxDepth)
	}
	depth := in.MaxDepth
	if depth == 0 {
		depth = 4
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return zero, fault.Usagef("dir %q is not a directory", dir)
	}
	out, err := discover(ctx, dir, depth)
	if err != nil {
		return zero, err
	}
	return catalog.Result[DiscoverOutput]{Text: renderDiscover(dir, out), Output: out}, nil
}

// discover walks root breadth-first (filepath.WalkDir is depth-first, and
// lexical order would list a nested example project before the root one).
func discover(ctx context.Context, root string, maxDepth int) (DiscoverOutput, error) {
	out := DiscoverOutput{Workspaces: []string{}, Projects: []string{}}
	level := []string{root}
	for depth := 0; depth <= maxDepth && len(level) > 0; depth++ {
		var next []string
		for _, dir := range level {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				continue // unreadable: not ours to report
			}
			for _, e := range entries {
				if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
					continue
				}
				p := filepath.Join(dir, e.Name())
				switch ext := filepath.Ext(e.Name()); {
				case ext == ".xcworkspace":
					// project.xcworkspace inside an .xcodeproj is Xcode's own.
					if !strings.HasSuffix(dir, ".xcodeproj") {
						out.Workspaces, out.Truncated = add(out.Workspaces, p, out.Truncated)
					}
				case ext == ".xcodeproj":
					out.Projects, out.Truncated = add(out.Projects, p, out.Truncated)
				case skipDirs[e.Name()] || strings.HasPrefix(e.Name(), "."):
				default:
					next = append(next, p)
				}
			}
		}
		level = next
	}
	return out, nil
}

func add(list []string, p string, truncated bool) ([]string, bool) {
	if len(list) == maxFound {
		return list, true
	}
	return append(list, p), truncated
}

func renderDiscover(root string, out DiscoverOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "FOUND %d workspaces, %d projects under %s\n", len(out.Workspaces), len(out.Projects), root)
	for _, w := range out.Workspaces {
		fmt.Fprintf(&b, "  workspace %s\n", w)
	}
	for _, p := range out.Projects {
		fmt.Fprintf(&b, "  project %s\n", p)
	}
	if out.Truncated {
		fmt.Fprintf(&b, "  … more than %d; narrow dir\n", maxFound)
	}
	switch {
	case len(out.Workspaces) > 0:
		fmt.Fprintf(&b, "next: %s\n", catalog.NextCall("xcode_list_schemes", map[string]any{"workspace_path": out.Workspaces[0]}))
	case len(out.Projects) > 0:
		fmt.Fprintf(&b, "next: %s\n", catalog.NextCall("xcode_list_schemes", map[string]any{"project_path": out.Projects[0]}))
	}
	return b.String()
}
