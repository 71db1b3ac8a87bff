package xcode

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/triage-dev/triage/internal/testreport"
)

// SummaryCommand returns the Xcode 16+ summary of a result bundle:
// `xcrun xcresulttool get test-results summary --path P --compact`.
func SummaryCommand(bundle string) (Command, error) {
	return xcresultCommand(bundle, true, "get", "test-results", "summary")
}

// TestsCommand returns the Xcode 16+ test tree of a result bundle:
// `xcrun xcresulttool get test-results tests --path P --compact`.
func TestsCommand(bundle string) (Command, error) {
	return xcresultCommand(bundle, true, "get", "test-results", "tests")
}

// LegacyCommand returns the pre-Xcode 16 form, the fallback when the
// test-results subcommand does not exist:
// `xcrun xcresulttool get --legacy --format json --path P`.
func LegacyCommand(bundle string) (Command, error) {
	return xcresultCommand(bundle, false, "get", "--legacy", "--format", "json")
}

func xcresultCommand(bundle string, compact bool, sub ...string) (Command, error) {
	if bundle == "" {
		return Command{}, &RequestError{"result_bundle_path", "required"}
	}
	if err := checkValue("result_bundle_path", bundle); err != nil {
		return Command{}, err
	}
	argv := append([]string{"xcrun", "xcresulttool"}, sub...)
	argv = append(argv, "--path", absPath(bundle))
	if compact {
		argv = append(argv, "--compact")
	}
	return Command{Argv: argv}, nil
}

// Test results as xcresulttool spells them.
const (
	ResultPassed          = "Passed"
	ResultFailed          = "Failed"
	ResultSkipped         = "Skipped"
	ResultExpectedFailure = "Expected Failure"
	ResultUnknown         = "unknown"
)

// TestSummary is the summary of a test run in a result bundle.
type TestSummary struct {
	Title            string        `json:"title,omitempty"`
	Result           string        `json:"result"` // one of the Result* constants
	Total            int           `json:"total"`
	Passed           int           `json:"passed"`
	Failed           int           `json:"failed"`
	Skipped          int           `json:"skipped"`
	ExpectedFailures int           `json:"expected_failures"`
	Failures         []TestFailure `json:"failures,omitempty"`
	Devices          []DeviceRun   `json:"devices,omitempty"`
	Environment      string        `json:"environment,omitempty"`
	Start            time.Time     `json:"start,omitzero"`
	Finish           time.Time     `json:"finish,omitzero"`
	// Errors are build and runner errors (legacy bundles record them).
	Errors []string `json:"errors,omitempty"`
	// Legacy is set when parsed from the pre-Xcode 16 format.
	Legacy bool `json:"legacy,omitempty"`
}

// TestFailure is one failed test.
type TestFailure struct {
	TestName   string `json:"test_name"`
	Target     string `json:"target,omitempty"`
	Text       string `json:"text"`
	Identifier string `json:"identifier,omitempty"` // Target/Class/method()
	Location   string `json:"location,omitempty"`   // source file, when known
}

// DeviceRun is the tally of a run on one device and test plan configuration.
type DeviceRun struct {
	DeviceName       string `json:"device_name"`
	DeviceID         string `json:"device_id,omitempty"`
	Platform         string `json:"platform,omitempty"`
	OSVersion        string `json:"os_version,omitempty"`
	Architecture     string `json:"architecture,omitempty"`
	Model            string `json:"model,omitempty"`
	Configuration    string `json:"configuration,omitempty"`
	Passed           int    `json:"passed"`
	Failed           int    `json:"failed"`
	Skipped          int    `json:"skipped"`
	ExpectedFailures int    `json:"expected_failures"`
}

// Status is the run's status in testreport's terms. A summary with no test
// that passed or failed is NoTests (an -only-testing that matched nothing
// yields result "unknown" and a count of 0); an unknown result with tests
// counted is Errored: the run did not finish.
func (s *TestSummary) Status() testreport.Status {
	switch {
	case s.Failed > 0 || s.Result == ResultFailed:
		return testreport.Failed
	case len(s.Errors) > 0:
		return testreport.Errored
	case s.Passed+s.ExpectedFailures == 0 && (s.Total == s.Skipped):
		return testreport.NoTests
	case s.Result == ResultPassed:
		return testreport.Passed
	}
	return testreport.Errored
}

type summaryJSON struct {
	Title            string   `json:"title"`
	Result           *string  `json:"result"`
	TotalTestCount   *int     `json:"totalTestCount"`
	PassedTests      int      `json:"passedTests"`
	FailedTests      int      `json:"failedTests"`
	SkippedTests     int      `json:"skippedTests"`
	ExpectedFailures int      `json:"expectedFailures"`
	Environment      string   `json:"environmentDescription"`
	StartTime        *float64 `json:"startTime"`
	FinishTime       *float64 `json:"finishTime"`
	TestFailures     []struct {
		TestName             string          `json:"testName"`
		TargetName           string          `json:"targetName"`
		FailureText          string          `json:"failureText"`
		TestIdentifier       json.RawMessage `json:"testIdentifier"`
		TestIdentifierString string          `json:"testIdentifierString"`
	} `json:"testFailures"`
	DevicesAndConfigurations []struct {
		Device struct {
			DeviceName   string `json:"deviceName"`
			DeviceID     string `json:"deviceId"`
			Platform     string `json:"platform"`
			OSVersion    string `json:"osVersion"`
			Architecture string `json:"architecture"`
			ModelName    string `json:"modelName"`
		} `json:"device"`
		TestPlanConfiguration struct {
			ConfigurationName string `json:"configurationName"`
		} `json:"testPlanConfiguration"`
		PassedTests      int `json:"passedTests"`
		FailedTests      int `json:"failedTests"`
		SkippedTests     int `json:"skippedTests"`
		ExpectedFailures int `json:"expectedFailures"`
	} `json:"devicesAndConfigurations"`
}

// ParseSummary parses `xcresulttool get test-results summary` (Xcode 16+).
func ParseSummary(out []byte) (*TestSummary, error) {
	var doc summaryJSON
	if err := decodeJSON("xcresult summary", out, '{', &doc); err != nil {
		return nil, err
	}
	if doc.Result == nil || doc.TotalTestCount == nil {
		return nil, fmt.Errorf("parsing xcresult summary: no \"result\" or \"totalTestCount\" (is this the legacy format? use ParseLegacy)")
	}
	s := &TestSummary{
		Title: doc.Title, Result: *doc.Result, Total: *doc.TotalTestCount,
		Passed: doc.PassedTests, Failed: doc.FailedTests, Skipped: doc.SkippedTests,
		ExpectedFailures: doc.ExpectedFailures, Environment: doc.Environment,
		Start: unixTime(doc.StartTime), Finish: unixTime(doc.FinishTime),
	}
	for _, f := range doc.TestFailures {
		id := f.TestIdentifierString
		if id == "" {
			id = rawString(f.TestIdentifier)
		}
		s.Failures = append(s.Failures, TestFailure{TestName: f.TestName, Target: f.TargetName, Text: f.FailureText, Identifier: id})
	}
	for _, d := range doc.DevicesAndConfigurations {
		s.Devices = append(s.Devices, DeviceRun{
			DeviceName: d.Device.DeviceName, DeviceID: d.Device.DeviceID, Platform: d.Device.Platform,
			OSVersion: d.Device.OSVersion, Architecture: d.Device.Architecture, Model: d.Device.ModelName,
			Configuration: d.TestPlanConfiguration.ConfigurationName,
			Passed:        d.PassedTests, Failed: d.FailedTests, Skipped: d.SkippedTests, ExpectedFailures: d.ExpectedFailures,
		})
	}
	return s, nil
}

// unixTime converts xcresulttool's seconds since the epoch.
func unixTime(secs *float64) time.Time {
	if secs == nil || *secs <= 0 || math.IsInf(*secs, 0) || math.IsNaN(*secs) || *secs > 1e11 {
		return time.Time{}
	}
	whole, frac := math.Modf(*secs)
	return time.Unix(int64(whole), int64(frac*1e9)).UTC()
}

// rawString renders a JSON string or number as text, "" for anything else.
func rawString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// TestNode is a node of the test tree of `xcresulttool get test-results
// tests`: test plan > bundle > suite > case > failure messages, with device,
// configuration, argument and repetition nodes where they apply.
type TestNode struct {
	Identifier string     `json:"nodeIdentifier,omitempty"`
	Type       string     `json:"nodeType"` // "Test Plan", "Unit test bundle", "Test Suite", "Test Case", "Failure Message", ...
	Name       string     `json:"name"`
	Details    string     `json:"details,omitempty"`
	Result     string     `json:"result,omitempty"`
	Duration   string     `json:"duration,omitempty"`          // "0.12s", localised
	Seconds    *float64   `json:"durationInSeconds,omitempty"` // Xcode 16.3+
	Children   []TestNode `json:"children,omitempty"`
}

// Test node types the conversion to cases relies on.
const (
	NodeTestCase       = "Test Case"
	NodeTestSuite      = "Test Suite"
	NodeFailureMessage = "Failure Message"
)

// TestTree is the parsed output of `xcresulttool get test-results tests`.
type TestTree struct {
	Nodes []TestNode `json:"testNodes"`
}

// ParseTests parses `xcresulttool get test-results tests` (Xcode 16+).
func ParseTests(out []byte) (*TestTree, error) {
	var doc struct {
		Nodes *[]TestNode `json:"testNodes"`
	}
	if err := decodeJSON("xcresult tests", out, '{', &doc); err != nil {
		return nil, err
	}
	if doc.Nodes == nil {
		return nil, fmt.Errorf("parsing xcresult tests: no \"testNodes\" array")
	}
	return &TestTree{Nodes: *doc.Nodes}, nil
}

// maxDepth bounds the walk of a test tree (real trees are under 10 deep).
const maxDepth = 64

// Cases flattens the tree into testreport cases, in tree order: each case
// has its suite, status, duration and failure messages, with the first
// message's "File.swift:12: " prefix read into File and Line.
func (t *TestTree) Cases() []testreport.Case {
	var out []testreport.Case
	var walk func(nodes []TestNode, suite string, depth int)
	walk = func(nodes []TestNode, suite string, depth int) {
		if depth > maxDepth {
			return
		}
		for _, n := range nodes {
			switch n.Type {
			case NodeTestCase:
				out = append(out, nodeCase(n, suite))
			case NodeTestSuite:
				walk(n.Children, n.Name, depth+1)
			default:
				walk(n.Children, suite, depth+1)
			}
		}
	}
	walk(t.Nodes, "", 0)
	return out
}

func nodeCase(n TestNode, suite string) testreport.Case {
	c := testreport.Case{Suite: suite, Name: n.Name, Status: nodeStatus(n.Result), Duration: nodeDuration(n)}
	msgs := failureMessages(n.Children, 0, nil)
	if len(msgs) > 0 {
		c.File, c.Line = messageLocation(msgs[0])
		c.Message = bounded(strings.Join(msgs, "\n"))
	}
	return c
}

func nodeStatus(result string) testreport.Status {
	switch result {
	case ResultPassed, ResultExpectedFailure:
		return testreport.Passed
	case ResultFailed:
		return testreport.Failed
	case ResultSkipped:
		return testreport.Skipped
	}
	return testreport.Errored
}

// durationRE reads "0.12s", "1,5s" (localised) or "2m 3s" loosely: the
// first number and its unit.
var durationRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+(?:[.,]\d+)?)\s*(ms|s|m|h)`) })

func nodeDuration(n TestNode) time.Duration {
	if n.Seconds != nil && *n.Seconds >= 0 && *n.Seconds < 1e7 {
		return time.Duration(*n.Seconds * float64(time.Second))
	}
	m := durationRE().FindStringSubmatch(strings.TrimSpace(n.Duration))
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(strings.Replace(m[1], ",", ".", 1), 64)
	if err != nil {
		return 0
	}
	unit := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour}[m[2]]
	return time.Duration(v * float64(unit))
}

func failureMessages(nodes []TestNode, depth int, acc []string) []string {
	if depth > maxDepth {
		return acc
	}
	for _, n := range nodes {
		if n.Type == NodeFailureMessage {
			acc = append(acc, n.Name)
		}
		acc = failureMessages(n.Children, depth+1, acc)
	}
	return acc
}

// locationRE reads the "File.swift:12: " that starts a failure message.
var locationRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([^\s:][^:]*\.[A-Za-z]+):(\d+): `) })

func messageLocation(msg string) (string, int) {
	m := locationRE().FindStringSubmatch(msg)
	if m == nil {
		return "", 0
	}
	line, err := strconv.Atoi(m[2])
	if err != nil {
		return "", 0
	}
	return m[1], line
}

// maxMessage bounds a case's failure message.
const maxMessage = 4 << 10

func bounded(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
