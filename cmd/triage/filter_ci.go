package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/triage-dev/triage/internal/ciout"
	"github.com/triage-dev/triage/internal/pipeline"
)

// ciFlags are `triage filter`'s CI outputs: GitHub Actions annotations on
// stdout, a JUnit XML file, a Markdown summary file.
type ciFlags struct {
	annotations bool
	junit       string
	markdown    string
}

// newCIFlags defines the CI flags on fs.
func newCIFlags(fs *flag.FlagSet) *ciFlags {
	ci := &ciFlags{}
	fs.BoolVar(&ci.annotations, "github-annotations", false, "after the summary, print GitHub Actions annotations (::error/::warning) for the failed tests and the compiler errors and warnings (at most 50)")
	fs.StringVar(&ci.junit, "junit", "", "write the parsed tests as JUnit XML to `FILE` (none when no tests were parsed)")
	fs.StringVar(&ci.markdown, "markdown", "", "append a Markdown summary (verdict, failed tests, counts) to `FILE`, such as $GITHUB_STEP_SUMMARY")
	return ci
}

// print prints the filter's output (printFiltered), then the CI outputs
// asked for, and returns the exit code.
func (ci *ciFlags) print(stdout, stderr io.Writer, res *pipeline.Result, filtered, output string) (int, error) {
	code, err := printFiltered(stdout, res, filtered, output)
	if err != nil {
		return code, err
	}
	return code, ci.write(stdout, stderr, res, code != exitOK)
}

// write writes the CI outputs asked for, after the filter's own output.
func (ci ciFlags) write(stdout, stderr io.Writer, res *pipeline.Result, failed bool) error {
	if ci.annotations {
		if err := ciout.WriteAnnotations(stdout, ciout.ForRun(res.Report, &res.Log, res.Line, failed)); err != nil {
			return err
		}
	}
	if ci.junit != "" {
		if res.Report == nil || len(res.Report.Cases) == 0 {
			fmt.Fprintf(stderr, "triage filter: no tests parsed from the log: %s not written\n", ci.junit)
		} else if err := writeCIFile(ci.junit, false, func(w io.Writer) error { return ciout.WriteJUnit(w, res.Report) }); err != nil {
			return err
		}
	}
	if ci.markdown != "" {
		return writeCIFile(ci.markdown, true, func(w io.Writer) error { return ciout.WriteMarkdown(w, res.Line, res.Report, &res.Log) })
	}
	return nil
}

// writeCIFile writes a CI output to path, made whole in memory first: a
// JUnit file replaces the file, a Markdown summary is appended to it (as
// every step appends to $GITHUB_STEP_SUMMARY).
func writeCIFile(path string, appendTo bool, fill func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := fill(&buf); err != nil {
		return err
	}
	mode := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		mode = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(path, mode, 0o644)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, err = f.Write(buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
