package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/textclip"
)

// filterFormats maps --toolchain names to the test output format of their
// logs; "" marks a toolchain whose logs are build logs only.
var filterFormats = map[string]string{
	"go": goTestLog, "go-json": testreport.FormatGoJSON, "go-text": testreport.FormatGoText,
	"cargo": testreport.FormatCargo, "rust": testreport.FormatCargo, "nextest": testreport.FormatNextest,
	"cmake": testreport.FormatCTest, "ctest": testreport.FormatCTest,
	"xcodebuild": testreport.FormatXCTest, "xcode": testreport.FormatXCTest,
	"swift": testreport.FormatXCTest, "xctest": testreport.FormatXCTest,
	"junit": testreport.FormatJUnit,
	"meson": testreport.FormatMeson, "automake": testreport.FormatAutomake, "autotools": testreport.FormatAutomake,
	"make": "", "gcc": "", "clang": "",
	// A test framework's own output, its program run directly.
	"tap": testreport.FormatTAP, "prove": testreport.FormatTAP,
	"gtest": testreport.FormatGTest, "googletest": testreport.FormatGTest,
	"catch2": testreport.FormatCatch2, "doctest": testreport.FormatDoctest,
	"boost-test": testreport.FormatBoostTest, "cunit": testreport.FormatCUnit,
	"check": testreport.FormatCheck, "cmocka": testreport.FormatCmocka,
	"criterion": testreport.FormatCriterion, "unity": testreport.FormatUnity,
}

// filterToolchains is the --toolchain list the help and errors give.
const filterToolchains = "go, cargo, nextest, cmake, make, autotools, meson, xcodebuild, swift, junit, or a test framework's: " +
	"tap, gtest, catch2, doctest, boost-test, cunit, check, cmocka, criterion, unity"

// filterOutput is `triage filter --output json`.
type filterOutput struct {
	Verdict string             `json:"verdict"`
	Status  pipeline.Status    `json:"status"`
	Log     logfilter.Summary  `json:"log"`
	Tests   *testreport.Report `json:"tests,omitempty"`
	// Filtered is the filtered log.
	Filtered string `json:"filtered"`
}

// cmdFilter reads a build or test log (stdin or a file) and prints the
// verdict line, the filtered log and the test summary: the test tool's
// pipeline, for CI logs (`go test -json ./... | triage filter`). It needs no
// server. Exit status 0 on success, 1 on failure, crash or an empty log
// (unless --allow-empty).
func cmdFilter(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("filter", flag.ContinueOnError)
	tc := fs.String("toolchain", "", "what wrote the log: "+filterToolchains+" (default: detected)")
	levelName := fs.String("level", "standard", "lines kept: minimal, standard or verbose")
	output := fs.String("output", "text", "text or json")
	allowEmpty := fs.Bool("allow-empty", false, "an empty log is a success (by default it is a failure: it proves nothing)")
	failOnSkip := fs.Bool("fail-on-skip", false, "a skipped test is a failure, unless --allow-skip matches its name")
	var allowSkip regexpList
	fs.Var(&allowSkip, "allow-skip", "with --fail-on-skip, a regular expression (RE2) matching skipped tests that are expected, such as `pkg/TestX`; repeat for more")
	ci := newCIFlags(fs)
	fs.Usage = func() {} // written below: to stdout when asked for, to stderr after a mistake
	if err := parseFlags(fs, args, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			filterUsage(fs, stdout)
			return exitOK, nil
		}
		filterUsage(fs, stderr)
		return 0, err
	}
	if fs.NArg() > 1 {
		return 0, usagef("filter reads one log: got %d files", fs.NArg())
	}
	level, err := logfilter.ParseLevel(*levelName)
	if err != nil {
		return 0, usagef("--level %q: use minimal, standard or verbose", *levelName)
	}
	format, err := filterFormat(*tc)
	if err != nil {
		return 0, err
	}
	if len(allowSkip) > 0 && !*failOnSkip {
		return 0, usagef("--allow-skip needs --fail-on-skip")
	}
	if *output != "text" && *output != "json" {
		return 0, usagef("--output %q: use text or json", *output)
	}
	if ci.annotations && *output == "json" {
		return 0, usagef("--github-annotations needs --output text")
	}
	in := stdin
	if fs.NArg() == 1 {
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			return 0, usagef("%v", err)
		}
		defer f.Close()
		in = f
	}
	if format == goTestLog {
		in, format = goTestFormat(in)
	}
	// The filtered log is held until the end: the verdict line comes first.
	var filtered strings.Builder
	res, err := pipeline.Analyze(in, pipeline.AnalyzeOptions{Format: format, Level: level, Filtered: &filtered, AllowEmpty: *allowEmpty,
		Skips: pipeline.SkipPolicy{Fail: *failOnSkip, Allowed: allowSkip}})
	if err != nil {
		return 0, err
	}
	return ci.print(stdout, stderr, res, filtered.String(), *output)
}

// printFiltered prints the verdict, the filtered log and the summary, as
// text or as JSON, and returns the exit code.
func printFiltered(stdout io.Writer, res *pipeline.Result, filtered, output string) (int, error) {
	code := exitOK
	if !res.Status.OK() {
		code = exitFailure
	}
	if output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return code, enc.Encode(filterOutput{Verdict: res.Line, Status: res.Status, Log: res.Log, Tests: res.Report, Filtered: filtered})
	}
	fmt.Fprintln(stdout, res.Line)
	io.WriteString(stdout, filtered)
	writeFilterSummary(stdout, res)
	return code, nil
}

// goTestLog is --toolchain go: go test's -json events, or its text when
// the log is not JSON (`go test ./...`, with or without -v).
const goTestLog = "go test"

// goTestFormat reads the start of a go test log to tell -json from text.
func goTestFormat(in io.Reader) (io.Reader, string) {
	br := bufio.NewReaderSize(in, 64<<10)
	sample, _ := br.Peek(64 << 10) // a read error comes again to the reader
	return br, testreport.GoFormat(sample)
}

// filterFormat is the log format --toolchain names ("": detected).
func filterFormat(tc string) (string, error) {
	if tc == "" {
		return "", nil
	}
	format, ok := filterFormats[strings.ToLower(tc)]
	if !ok {
		return "", usagef("--toolchain %q: use %s", tc, filterToolchains)
	}
	return format, nil
}

func filterUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintln(w, `usage: triage filter [--toolchain T] [--level L] [--output text|json] [--allow-empty]
                     [--fail-on-skip [--allow-skip RE]...]
                     [--github-annotations] [--junit FILE] [--markdown FILE] [FILE]
Reads a build or test log from FILE or standard input and prints the verdict
line, the lines kept and the test summary. A log with test output is judged
as a test run, any other as a build. Exit status: 0 success, 1 failure, crash
or an empty log, 2 usage error.
In CI: --github-annotations prints GitHub Actions annotations after the
summary, --junit writes a JUnit XML file of the parsed tests, --markdown a
summary to append to $GITHUB_STEP_SUMMARY.`)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// writeFilterSummary prints the parsed test tally and the log's counts.
func writeFilterSummary(w io.Writer, res *pipeline.Result) {
	fmt.Fprintln(w, "---")
	if rep := res.Report; rep != nil {
		t := rep.Totals
		fmt.Fprintf(w, "tests (%s): %d total, %d passed, %d failed, %d errored, %d crashed, %d skipped\n",
			rep.Format, t.Total, t.Passed, t.Failed, t.Errored, t.Crashed, t.Skipped)
		writeFailures(w, rep.Failures())
		writeSkipped(w, rep)
		for _, n := range rep.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
	s := res.Log
	fmt.Fprintf(w, "log (%s): %s, %d kept; %s, %s, %s, %s\n", s.Toolchain, textclip.Count(s.Lines, "line"), s.KeptLines,
		textclip.Count(s.Errors+s.LinkerErrors, "error"), textclip.Count(s.Warnings, "warning"),
		textclip.Count(s.Failures, "failure"), textclip.Count(s.Crashes, "crash line"))
}

// maxListedFailures bounds the failed tests the summary names.
const maxListedFailures = 50

// writeFailures names the failed tests, each with where and the first
// line of why.
func writeFailures(w io.Writer, fails []testreport.Case) {
	for i, c := range fails {
		if i == maxListedFailures {
			fmt.Fprintf(w, "  … and %d more failed\n", len(fails)-i)
			return
		}
		status := string(c.Status)
		if c.Kind != "" {
			status += ": " + c.Kind
		}
		fmt.Fprintf(w, "  %s %s [%s]", c.Suite, c.Name, status)
		if c.File != "" {
			fmt.Fprintf(w, " at %s:%d", c.File, c.Line)
		}
		if msg, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n"); msg != "" {
			fmt.Fprintf(w, ": %s", textclip.String(msg, 200))
		}
		fmt.Fprintln(w)
	}
}

// maxListedSkips bounds the skipped tests the summary names.
const maxListedSkips = 50

// writeSkipped names the skipped tests, so that a skip in CI is seen.
func writeSkipped(w io.Writer, rep *testreport.Report) {
	n := 0
	for _, c := range rep.Cases {
		if c.Status != testreport.Skipped {
			continue
		}
		if n++; n > maxListedSkips {
			continue
		}
		fmt.Fprintf(w, "  skipped: %s %s", c.Suite, c.Name)
		if why, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n"); why != "" {
			fmt.Fprintf(w, " (%.100s)", why)
		}
		fmt.Fprintln(w)
	}
	if n > maxListedSkips {
		fmt.Fprintf(w, "  skipped: %d more\n", n-maxListedSkips)
	}
}

// regexpList is a repeatable flag of regular expressions.
type regexpList []*regexp.Regexp

func (l *regexpList) String() string { return fmt.Sprint(*l) }

func (l *regexpList) Set(s string) error {
	re, err := regexp.Compile(s)
	if err != nil {
		return err
	}
	*l = append(*l, re)
	return nil
}
