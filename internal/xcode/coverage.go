package xcode

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/triage-dev/triage/internal/coverage"
)

// CoverageCommand returns the coverage report of a result bundle:
// `xcrun xccov view --report --json BUNDLE` (totals, targets, files and
// their functions, without line data).
func CoverageCommand(bundle string) (Command, error) {
	if bundle == "" {
		return Command{}, &RequestError{"result_bundle_path", "required"}
	}
	if err := checkValue("result_bundle_path", bundle); err != nil {
		return Command{}, err
	}
	return Command{Argv: []string{"xcrun", "xccov", "view", "--report", "--json", absPath(bundle)}}, nil
}

// ArchiveCommand returns the line data of a result bundle's coverage,
// each line's execution count: of one source file, absolute (`xcrun
// xccov view --archive --file FILE --json BUNDLE`), or of every file when
// file is "".
func ArchiveCommand(bundle, file string) (Command, error) {
	if _, err := CoverageCommand(bundle); err != nil {
		return Command{}, err
	}
	argv := []string{"xcrun", "xccov", "view", "--archive"}
	if file != "" {
		if !filepath.IsAbs(file) {
			return Command{}, &RequestError{"file", fmt.Sprintf("%q is not an absolute path", file)}
		}
		argv = append(argv, "--file", filepath.Clean(file))
	}
	return Command{Argv: append(argv, "--json", absPath(bundle))}, nil
}

// maxLineFiles bounds the files whose lines SummarizeCoverage reads from
// the result bundle's archive (one xccov call each).
const maxLineFiles = 5

// SummarizeCoverage summarizes the run's coverage of the files filter
// selects (coverage.Summarize), their lines read from the result bundle's
// archive first when it selects at most maxLineFiles. one is the file
// when it selects one whose lines were read.
func (o *BuildOutcome) SummarizeCoverage(ctx context.Context, filter string, max int) (s coverage.Summary, one *coverage.File) {
	s = coverage.Summarize(o.Coverage, filter, max)
	if s.Matched > maxLineFiles || s.Matched == 0 {
		return s, nil
	}
	var abs []string
	for _, f := range s.Report.Files {
		p := filepath.FromSlash(f.Path)
		if !filepath.IsAbs(p) {
			p = filepath.Join(o.Coverage.ProjectDir, p)
		}
		abs = append(abs, p)
	}
	AddCoverageLines(ctx, o.ResultBundle, o.Coverage, abs)
	s = coverage.Summarize(o.Coverage, filter, max)
	if s.Matched != 1 {
		return s, nil
	}
	for i := range o.Coverage.Files {
		if f := &o.Coverage.Files[i]; f.Path == s.Report.Files[0].Path && (len(f.Uncovered) > 0 || len(f.CoveredRanges) > 0) {
			return s, f
		}
	}
	return s, nil
}

// AddCoverageLines reads the lines of files (absolute paths) from
// bundle's coverage archive into rep, read from its report: one xccov
// call a file, as xccov takes one --file. Files whose lines cannot be
// read keep their figures, and one note says how many and why.
func AddCoverageLines(ctx context.Context, bundle string, rep *coverage.Report, files []string) {
	failed, why := 0, ""
	for _, f := range files {
		cmd, err := ArchiveCommand(bundle, f)
		if err == nil {
			var out []byte
			if out, err = Run(ctx, cmd, 0); err == nil {
				_, err = rep.AddXccovLines(out)
			}
		}
		if err != nil {
			if failed++; failed == 1 {
				why = fmt.Sprintf("%s: %v", f, err)
			}
		}
	}
	if failed > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the lines of %d of %d files could not be read from the result bundle's coverage archive (%s)", failed, len(files), why))
	}
}

// readCoverage reads a coverage run's report from its result bundle into
// o.Coverage, or says in o.CoverageError why there is none; the project's
// files are those under dir. A run without coverage has neither. A failed
// run's first failed test is then rerun alone (failedPath).
func (o *BuildOutcome) readCoverage(ctx context.Context, action Action, r Request, dir string) {
	if !r.Coverage {
		return
	}
	if o.ResultBundle == "" {
		o.CoverageError = "no coverage: xcodebuild wrote no result bundle. Tried -enableCodeCoverage YES; check that the tests ran"
		return
	}
	cmd, err := CoverageCommand(r.ResultBundlePath)
	if err == nil {
		var out []byte
		if out, err = Run(ctx, cmd, 0); err == nil {
			o.Coverage, err = coverage.ReadXccovReport(out, dir)
		}
	}
	if err != nil {
		o.CoverageError = fmt.Sprintf("no coverage: %v. Tried -enableCodeCoverage YES and xccov view --report --json of the result bundle; "+
			"check that the scheme's test action gathers coverage for the targets (a test plan may turn it off)", err)
		return
	}
	o.failedPath(ctx, action, r, dir)
}
