package xcode

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/xcode"
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

func (h *handler) discover(ctx context.Context, c *catalog.Call, in discoverParams) (catalog.Result[DiscoverOutput], error) {
	dir := cmp.Or(in.Dir, in.ProjectDir)
	f, err := xcode.Discover(ctx, dir, in.MaxDepth)
	if err != nil {
		return catalog.Result[DiscoverOutput]{}, err
	}
	out := DiscoverOutput{Workspaces: f.Workspaces, Projects: f.Projects, Truncated: f.Truncated}
	return catalog.Result[DiscoverOutput]{Text: renderDiscover(dir, out), Output: out}, nil
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
		fmt.Fprintf(&b, "  … more than %d; narrow dir\n", xcode.MaxFound)
	}
	switch {
	case len(out.Workspaces) > 0:
		fmt.Fprintf(&b, "next: %s\n", catalog.NextCall("xcode_list_schemes", map[string]any{"workspace_path": out.Workspaces[0]}))
	case len(out.Projects) > 0:
		fmt.Fprintf(&b, "next: %s\n", catalog.NextCall("xcode_list_schemes", map[string]any{"project_path": out.Projects[0]}))
	}
	return b.String()
}
