package coverage

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
)

// ToolXccov is Xcode's coverage: xcodebuild -enableCodeCoverage YES keeps
// it in the result bundle, and `xccov view --report --json` reports it.
const ToolXccov = "xccov"

// xccovReport is the part of `xccov view --report --json` that line
// coverage needs: each target's files and their figures. The report has
// no line data (that is `xccov view --archive --file`'s); its functions
// name only their first line.
type xccovReport struct {
	Targets []struct {
		Name  string `json:"name"`
		Files []struct {
			Path            string `json:"path"`
			CoveredLines    int    `json:"coveredLines"`
			ExecutableLines int    `json:"executableLines"`
		} `json:"files"`
	} `json:"targets"`
}

// xccovNote says what a report read from xccov's report lacks.
const xccovNote = "xccov's report gives each file's figures, not its lines: no uncovered ranges"

// ReadXccovReport reads `xccov view --report --json` (whose size the
// caller bounds) into a report of dir's files. A file built into several targets is counted once, with
// the figures of the target that ran most of it.
func ReadXccovReport(data []byte, dir string) (*Report, error) {
	var x xccovReport
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, fmt.Errorf("reading xccov's report: %w", err)
	}
	if x.Targets == nil {
		return nil, errors.New(`reading xccov's report: no "targets"`)
	}
	c := newClassifier(dir, nil)
	seen := map[string]*File{}
	r := &Report{Tool: ToolXccov, ProjectDir: c.project, Notes: []string{xccovNote}}
	for _, t := range x.Targets {
		for _, f := range t.Files {
			if f.Path == "" || !filepath.IsAbs(f.Path) || f.ExecutableLines < 0 || f.CoveredLines < 0 || f.CoveredLines > f.ExecutableLines {
				return nil, fmt.Errorf("reading xccov's report: target %s: bad file %q (%d of %d lines)", t.Name, f.Path, f.CoveredLines, f.ExecutableLines)
			}
			path := filepath.Clean(f.Path)
			if old, ok := seen[path]; ok {
				if f.CoveredLines > old.Covered {
					old.Lines, old.Covered = f.ExecutableLines, f.CoveredLines
				}
				continue
			}
			if len(seen) >= maxJSONFiles {
				return nil, fmt.Errorf("reading xccov's report: more than %d files", maxJSONFiles)
			}
			rel, kind := c.classify(path)
			seen[path] = &File{Path: rel, Kind: kind, Lines: f.ExecutableLines, Covered: f.CoveredLines}
		}
	}
	for _, f := range seen {
		r.Files = append(r.Files, *f)
	}
	slices.SortFunc(r.Files, byPath)
	r.count()
	return r, nil
}
