// Package xcode builds the command lines of Apple's developer tools and
// parses what they print: xcodebuild (build, test, clean, -list,
// -showBuildSettings), `xcrun simctl` and `xcrun xcresulttool`, and runs
// them (through internal/spawn, on macOS only: see Available): short
// commands with Run, xcodebuild actions with Build (through pipeline, the
// result bundle merged into the verdict), and the crash reports written
// during a run with Correlate. The builders and parsers are tested
// everywhere on recorded samples, the runners against a fake xcrun.
//
// Quirks of the tools this package accounts for:
//   - xcodebuild takes -workspace or -project, never both, and a scheme's
//     own configuration is kept unless -configuration is passed.
//   - A generic destination ("generic/platform=iOS") builds but cannot test;
//     a simulator destination names the simulator by id, or by name and OS.
//   - Parallel agents building one workspace into Xcode's shared
//     DerivedData collide; each workspace gets its own derived data
//     directory under the user's cache directory (DerivedDataPath).
//   - xcodebuild forwards to the test runner only the environment variables
//     prefixed TEST_RUNNER_ (Request.TestEnv adds the prefix).
//   - -showBuildSettings must be given the same derived data path as the
//     build, or it reports products where the build did not put them.
//   - simctl keys devices by runtime identifier
//     (com.apple.CoreSimulator.SimRuntime.iOS-18-0; "iOS 12.1" before Xcode
//     10.1), and the same name exists once per runtime.
//   - xcresulttool changed its output in Xcode 16: `get test-results
//     summary|tests` is the new JSON; `get --legacy --format json` is the old
//     ActionsInvocationRecord tree, kept as a fallback.
package xcode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
)

// ErrUnavailable is wrapped by Available's error.
var ErrUnavailable = errors.New("requires macOS with Xcode")

// Available returns nil only on macOS with xcodebuild on PATH; otherwise an
// error, wrapping ErrUnavailable, that says what is missing.
func Available() error {
	return available(runtime.GOOS, runtime.GOARCH, exec.LookPath)
}

func available(goos, goarch string, lookPath func(string) (string, error)) error {
	if goos != "darwin" {
		return fmt.Errorf("%w (this is %s/%s)", ErrUnavailable, goos, goarch)
	}
	if _, err := lookPath("xcodebuild"); err != nil {
		return fmt.Errorf("%w: xcodebuild not found on PATH (install Xcode, then run xcode-select --switch /Applications/Xcode.app)", ErrUnavailable)
	}
	return nil
}

// Command is one command line to run, with environment overrides.
type Command struct {
	Argv []string          `json:"argv"`
	Env  map[string]string `json:"env,omitempty"`
}

// ErrNoOutput is wrapped by the parsers' error for empty input.
var ErrNoOutput = errors.New("no output to parse")

// decodeJSON decodes the JSON document in out into v. Tools sometimes print
// a warning line before their JSON on the same stream, so text before the
// first line that opens a document (with open, '{' or '[') is skipped.
func decodeJSON(what string, out []byte, open byte, v any) error {
	doc := bytes.TrimSpace(out)
	if len(doc) == 0 {
		return fmt.Errorf("parsing %s: %w", what, ErrNoOutput)
	}
	if doc[0] != open {
		i := bytes.Index(doc, []byte{'\n', open})
		if i < 0 {
			return fmt.Errorf("parsing %s: no JSON document in output starting %q", what, head(doc))
		}
		doc = doc[i+1:]
	}
	if err := json.Unmarshal(doc, v); err != nil {
		return fmt.Errorf("parsing %s: %w", what, err)
	}
	return nil
}

// head returns the start of b, for error messages.
func head(b []byte) string {
	const n = 80
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
