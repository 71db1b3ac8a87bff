// Package fakeaxe installs a fake `axe` (AXe's command-line tool) for tests
// on machines without a Mac. Import it from _test files only.
//
// It is the fakexcode program installed under the name axe, answering from
// AXe's recorded outputs (testdata, see PROVENANCE.tsv: AXe's compatibility
// goldens for Xcode 26.5 / iOS 26.5, MIT): --help and validation errors are
// replayed as recorded (stdout, stderr, exit status). describe-ui answers
// DescribeUI, a documented transformation of the recording: AXe records
// only the JSON paths and types of a real describe-ui of AxePlayground's
// "tap-test" screen (hierarchy-schema-types.json), which DescribeUI
// instantiates with the labels and identifiers that screen's source
// (TapTestView.swift) declares; TestDescribeUIHasTheRecordedSchema keeps
// the two equal. A successful action's output is not recorded and triage
// does not read it: the fake prints nothing and exits 0. A screenshot
// writes a small PNG to --output.
package fakeaxe

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/fakexcode"
)

// Fake is an installed fake axe; its Calls are fakexcode's.
type Fake struct{ *fakexcode.Fake }

// Actions are the subcommands the fake answers with success by default.
var Actions = []string{"tap", "touch", "swipe", "type", "key", "button", "gesture"}

// Install puts a fake axe first on PATH (with fakexcode's xcrun and
// xcodebuild beside it). rules come first, so a test can make any command
// fail with a Replay; then --help of every command, describe-ui, screenshot
// and the actions answer as described in the package comment.
func Install(t testing.TB, rules ...fakexcode.Rule) *Fake {
	return InstallScreen(t, DescribeUI(), rules...)
}

// InstallScreen is Install answering describe-ui with screen (Screen(n)).
func InstallScreen(t testing.TB, screen []byte, rules ...fakexcode.Rule) *Fake {
	t.Helper()
	dir := t.TempDir()
	tree := filepath.Join(dir, "describe-ui.json")
	if err := os.WriteFile(tree, screen, 0o644); err != nil {
		t.Fatal(err)
	}
	all := append([]fakexcode.Rule{}, rules...)
	for _, c := range []string{"describe-ui", "screenshot", "tap", "touch", "swipe", "type", "key", "button", "gesture"} {
		all = append(all, Replay(t, "help-"+c, c, "--help"))
	}
	all = append(all, Replay(t, "help", "--help"),
		fakexcode.Rule{Tool: "axe", Match: []string{"describe-ui"}, StdoutFile: tree},
		fakexcode.Rule{Tool: "axe", Match: []string{"screenshot"}, WriteAfter: "--output", WriteFile: pngFile(t, dir)})
	for _, a := range Actions {
		all = append(all, fakexcode.Rule{Tool: "axe", Match: []string{a}})
	}
	return &Fake{fakexcode.Install(t, fakexcode.Scenario{Rules: all, Tools: []string{"axe"}})}
}

// Replay answers the command lines matching match with the recorded case
// (testdata/cases/NAME): its stdout, stderr and exit status, whatever
// arguments the recording was made with.
func Replay(t testing.TB, name string, match ...string) fakexcode.Rule {
	t.Helper()
	read := func(f string) string {
		raw, err := os.ReadFile(filepath.Join(Testdata(), "cases", name, f))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return string(raw)
	}
	exit, err := strconv.Atoi(strings.TrimSpace(read("exit-code.txt")))
	if err != nil {
		t.Fatalf("fakeaxe: case %s: exit code: %v", name, err)
	}
	return fakexcode.Rule{Tool: "axe", Match: match, Stdout: read("stdout.txt"), Stderr: read("stderr.txt"), Exit: exit}
}

// Recorded returns a recorded case's file (testdata/cases/NAME/FILE).
func Recorded(t testing.TB, name, file string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(Testdata(), "cases", name, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// Testdata is the directory of the recordings.
func Testdata() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

// pngFile writes the screenshot the fake hands out: 30x60 pixels.
func pngFile(t testing.TB, dir string) string {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 30, 60))); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "screen.png")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
