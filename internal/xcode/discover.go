package xcode

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/fault"
)

// Found are the workspaces and projects under a directory, shallowest
// first, at most MaxFound of each (Truncated when there were more).
type Found struct {
	Workspaces []string
	Projects   []string
	Truncated  bool
}

// MaxFound bounds each list of Found.
const MaxFound = 100

// skipDirs are never descended into: build output and dependencies hold
// bundles that are not the user's project.
var skipDirs = map[string]bool{"DerivedData": true, "Pods": true, ".build": true, "Carthage": true, "node_modules": true, ".git": true, "build": true}

// Discover finds the workspaces and projects under root, descending
// maxDepth levels (1 to 10; 0 means 4).
func Discover(ctx context.Context, root string, maxDepth int) (Found, error) {
	if root == "" {
		return Found{}, fault.Usagef("dir is required (or set project_dir with session_set_defaults)")
	}
	if maxDepth < 0 || maxDepth > 10 {
		return Found{}, fault.Usagef("max_depth %d: use 1 to 10", maxDepth)
	}
	if maxDepth == 0 {
		maxDepth = 4
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return Found{}, fault.Usagef("dir %q is not a directory", root)
	}
	return discover(ctx, root, maxDepth)
}

// discover walks root breadth-first (filepath.WalkDir is depth-first, and
// lexical order would list a nested example project before the root one).
func discover(ctx context.Context, root string, maxDepth int) (Found, error) {
	out := Found{Workspaces: []string{}, Projects: []string{}}
	level := []string{root}
	for depth := 0; depth <= maxDepth && len(level) > 0; depth++ {
		var next []string
		for _, dir := range level {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			next = out.scan(dir, next)
		}
		level = next
	}
	return out, nil
}

// scan adds the bundles in dir to f and the directories to descend into
// to next.
func (f *Found) scan(dir string, next []string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return next // unreadable: not ours to report
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
				f.Workspaces = f.add(f.Workspaces, p)
			}
		case ext == ".xcodeproj":
			f.Projects = f.add(f.Projects, p)
		case skipDirs[e.Name()] || strings.HasPrefix(e.Name(), "."):
		default:
			next = append(next, p)
		}
	}
	return next
}

func (f *Found) add(list []string, p string) []string {
	if len(list) == MaxFound {
		f.Truncated = true
		return list
	}
	return append(list, p)
}
