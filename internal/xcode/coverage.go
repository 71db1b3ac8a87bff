package xcode

import (
	"context"
	"fmt"

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

// readCoverage reads a coverage run's report from its result bundle into
// o.Coverage, or says in o.CoverageError why there is none; the project's
// files are those under dir. A run without coverage has neither.
func (o *BuildOutcome) readCoverage(ctx context.Context, r Request, dir string) {
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
	}
}
