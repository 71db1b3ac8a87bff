package testreport

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

const fixtures = "../../../shared/fixtures"

// expectation is written by hand from reading each log, not produced by
// this package.
type expectation struct {
	format string
	status Status
	errors int      // len(BuildErrors) + len(RunnerErrors)
	failed []string // names of failed, errored and crashed cases, sorted
}

var corpusExpectations = map[string]expectation{
	// The UI test's runner dies ("Terminating app due to uncaught exception")
	// in the middle of testAddAnItemGoToDetailsThenDeleteIt.
	"xcodebuild/bitrise_xcodebuild-UITest-timeout.txt": {FormatXCTest, Crashed, 0, []string{"testAddAnItemGoToDetailsThenDeleteIt"}},
	// Six distinct Swift errors (20:13 is printed three times).
	"xcodebuild/bitrise_xcodebuild-compile-error.txt":                    {FormatXCTest, Failed, 6, nil},
	"xcodebuild/bitrise_xcodebuild-early-unexpected-exit_1.txt":          {FormatXCTest, Crashed, 1, nil},
	"xcodebuild/bitrise_xcodebuild-failed-to-background-test-runner.txt": {FormatXCTest, Errored, 1, nil},
	"xcodebuild/bitrise_xcodebuild-failed-to-open-test-runner.txt":       {FormatXCTest, Errored, 1, nil},
	"xcodebuild/bitrise_xcodebuild-failure-attempting-tolaunch.txt":      {FormatXCTest, Failed, 0, []string{"testExample"}},
	// Nothing but a build-settings dump and the simulator boot timeout.
	"xcodebuild/bitrise_xcodebuild-iPhoneSimulator-timeout.txt":          {FormatXCTest, Errored, 1, nil},
	"xcodebuild/bitrise_xcodebuild-ok.txt":                               {FormatXCTest, Passed, 0, nil},
	"xcodebuild/bitrise_xcodebuild-test-runner-failed-to-initialize.txt": {FormatXCTest, Errored, 1, nil},
	"xcodebuild/fastlane_scan_boring.log":                                {FormatXCTest, Passed, 0, nil},
	"xcodebuild/fastlane_scan_build_failure_xcbeautified.log":            {FormatXCTest, Failed, 1, nil},
	// The app hits "Precondition failed" at launch, twice; two runner errors.
	"xcodebuild/fastlane_scan_early_testing_failure.log":        {FormatXCTest, Crashed, 2, nil},
	"xcodebuild/fastlane_scan_parallel_testing_failure.log":     {FormatXCTest, Failed, 0, []string{"testFailure()"}},
	"xcodebuild/fastlane_scan_parallel_testing_failure_2.log":   {FormatXCTest, Failed, 1, []string{"testSomething()", "testSomething()"}},
	"xcodebuild/fastlane_scan_xcode26_test_execute_failure.log": {FormatXCTest, Failed, 0, []string{"testExample()", "testExample()"}},
	"xcodebuild/xcbeautify_MixedTestLog_6_0_Linux.txt":          {FormatXCTest, Failed, 0, []string{"testFailTrueIsFalse()", "testForceFailure"}},
	"xcodebuild/xcbeautify_MixedTestLog_6_0_macOS.txt":          {FormatXCTest, Failed, 0, []string{"testFailTrueIsFalse()", "testForceFailure"}},
	// Besides testAggregateTarget's assertion, the runner restarted "after
	// unexpected exit, crash, or test timeout" in two tests.
	"xcodebuild/xcbeautify_TestLog.txt":                {FormatXCTest, Crashed, 0, []string{"testAggregateTarget", "testExample", "testExample()"}},
	"xcodebuild/xcbeautify_clean_build_xcode_15_1.txt": {FormatXCTest, NoTests, 0, nil},
	"xcodebuild/xcbeautify_demo_swift_testing_log.txt": {FormatXCTest, Failed, 0, []string{"secondExample()"}},
	"xcodebuild/xcbeautify_spi_swift_testing_full_log.txt": {FormatXCTest, Failed, 0, []string{
		"analyze_dumpPackage_missing_manifest()", "analyze_getPackageInfo_gitCheckout_error()", "analyze_updateRepository_invalidPackageCachePath()"}},
	"xcodebuild/xcbeautify_spi_swift_testing_short_log.txt": {FormatXCTest, Failed, 0, []string{
		"analyze_dumpPackage_missing_manifest()", "analyze_getPackageInfo_gitCheckout_error()", "analyze_updateRepository_invalidPackageCachePath()"}},
	"xcodebuild/xcbeautify_swift_test_log_macOS.txt": {FormatXCTest, Failed, 0, []string{"Different kinds of functions are handled correctly", "Selected tests by ID"}},
	// "error: link command failed", "ld: symbol(s) not found", "clang: error: linker command failed".
	"xcodebuild/xcmcp_linker-error-output.txt":          {FormatXCTest, Failed, 3, nil},
	"xcodebuild/xcmcp_swift-testing-output.txt":         {FormatXCTest, Passed, 0, nil},
	"xcodebuild/xcpretty_raw_kiwi_compilation_fail.txt": {FormatXCTest, Failed, 2, nil},
	"xcodebuild/xcpretty_raw_kiwi_fail.txt": {FormatXCTest, Failed, 0, []string{
		"FindCreateSaveDeleteSpecs_Finders_FindsTheFirstMatch", "Mappings_UsesMappedValuesWhenCreating", "Mappings_UsesMappingsInFindOrCreate"}},

	"junit/go-junit-report_030-stdout-report.xml": {FormatJUnit, Failed, 0, []string{
		"TestFailWithNoTestOutput", "TestFailWithStdoutAndNoTestOutput", "TestFailWithStdoutAndTestOutput", "TestFailWithTestOutput", "TestSubtests",
		"TestSubtests/TestFailWithNoTestOutput", "TestSubtests/TestFailWithStdoutAndNoTestOutput", "TestSubtests/TestFailWithStdoutAndTestOutput", "TestSubtests/TestFailWithTestOutput"}},
	"junit/go-junit-report_035-whitespace-report.xml":          {FormatJUnit, Passed, 0, nil},
	"junit/xcbeautify_MixedTestLog_6_0_Expected_XML_Linux.xml": {FormatJUnit, Failed, 0, []string{"testFailTrueIsFalse()", "testForceFailure"}},
	"junit/xcbeautify_MixedTestLog_6_0_Expected_XML_macOS.xml": {FormatJUnit, Failed, 0, []string{"testFailTrueIsFalse()", "testForceFailure"}},
}

// Logs this package recorded from real tools (see testdata/README).
var ownExpectations = map[string]expectation{
	"go-test-json.log":      {FormatGoJSON, Crashed, 0, []string{"TestPanic", "TestSub", "TestSub/zero", "TestWrong"}},
	"go-test-json-exit.log": {FormatGoJSON, Crashed, 0, []string{"TestExits", "TestPanic", "TestSub", "TestSub/zero", "TestWrong"}},
	"cargo-test.log":        {FormatCargo, Failed, 0, []string{"tests::explodes", "tests::wrong"}},
	"ctest.log":             {FormatCTest, Crashed, 0, []string{"crash", "fails"}},
	"ctest-junit.xml":       {FormatJUnit, Failed, 0, []string{"crash", "fails"}},
}

func failedNames(r *Report) []string {
	var names []string
	for _, c := range r.Failures() {
		names = append(names, c.Name)
	}
	slices.Sort(names)
	return names
}

func checkExpectation(t *testing.T, path string, want expectation) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := ParseAuto(f)
	if err != nil {
		t.Fatalf("ParseAuto: %v", err)
	}
	if rep.Format != want.format {
		t.Errorf("format = %q, want %q", rep.Format, want.format)
	}
	if rep.Status != want.status {
		t.Errorf("status = %q, want %q (notes %q)", rep.Status, want.status, rep.Notes)
	}
	if n := len(rep.BuildErrors) + len(rep.RunnerErrors); n != want.errors {
		t.Errorf("errors = %d, want %d: build %q runner %q", n, want.errors, rep.BuildErrors, rep.RunnerErrors)
	}
	if got := failedNames(rep); !slices.Equal(got, want.failed) {
		t.Errorf("failed tests = %q, want %q", got, want.failed)
	}
}

func TestSharedCorpus(t *testing.T) {
	if _, err := os.Stat(fixtures); err != nil {
		t.Skipf("shared fixtures absent at %s: %v", fixtures, err)
	}
	for _, dir := range []string{"xcodebuild", "junit"} {
		paths, _ := filepath.Glob(filepath.Join(fixtures, dir, "*"))
		for _, p := range paths {
			rel := dir + "/" + filepath.Base(p)
			want, ok := corpusExpectations[rel]
			if !ok {
				t.Errorf("%s: no hand-written expectation; read the log and add one", rel)
				continue
			}
			t.Run(rel, func(t *testing.T) { checkExpectation(t, p, want) })
		}
	}
}

func TestOwnLogs(t *testing.T) {
	for name, want := range ownExpectations {
		t.Run(name, func(t *testing.T) { checkExpectation(t, filepath.Join("testdata", name), want) })
	}
}
