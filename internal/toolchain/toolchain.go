// Package toolchain recognises the build system of a project directory and
// turns "build it" or "test it, only these tests" into the command lines
// that do so. It builds argv arrays and parses nothing but names: it never
// starts a process (workflows run each Step through internal/spawn).
//
// The model: a Plan is a list of Steps run in order, each an argv, a working
// directory and environment overrides. Most toolchains need one step; CMake
// and Meson need three for a test run (configure, build, then ctest or
// meson test in the build directory). A test Step names the testreport
// format of its output, so the caller parses the output with
// testreport.Parse, and carries a Filter describing the test selection: a
// filter that matches nothing cannot be known in advance, so the caller,
// seeing testreport.NoTests, can say which filter selected nothing rather
// than report a vacuous success.
//
// Quirks of the tools on the other end, which the plans account for:
//   - go test splits a -run/-skip pattern on '/' to match subtests, so
//     several patterns can be joined with '|' only when none holds a '/'.
//   - cargo passes one positional filter to the test harness; libtest itself
//     takes any number after "--", which is where filters and --skip go.
//   - cargo test stops at the first failing test binary unless given
//     --no-fail-fast; ctest runs every test by default, and writes JUnit
//     XML with --output-junit (CMake 3.21 and later).
//   - swift build takes one --target, so several targets are several steps.
//   - make knows no configuration and no filter; the test target is "test",
//     or "check" when only that one is defined (autotools).
//   - meson setup on a configured directory ignores its options ("Directory
//     already configured"), and meson 1.0's setup --reconfigure refuses a
//     directory never configured; meson test takes exact test names, not
//     patterns, and has no exclusion by name (see meson.go).
//   - autotools' configure refuses to configure out of tree a source
//     directory configured in-source, and a checkout has no configure
//     until it is bootstrapped in the source tree (see autotools.go).
//
// Flag values the user supplies are passed in the "-flag=value" form where
// the tool accepts it, and names starting with '-' are refused, so no target
// or filter can be read as an option.
package toolchain

import (
	"errors"
	"fmt"
	"strings"
)

// Toolchain names a build system triage knows how to drive.
type Toolchain string

// The toolchains, in the order Detect prefers them when a directory holds
// the markers of several.
const (
	Go    Toolchain = "go"
	Cargo Toolchain = "cargo"
	CMake Toolchain = "cmake"
	Meson Toolchain = "meson"
	// Autotools is autoconf's configure and automake's Makefiles.
	Autotools Toolchain = "autotools"
	Swift     Toolchain = "swift"
	Make      Toolchain = "make"
)

// Known lists every toolchain, in Detect's order of preference.
func Known() []Toolchain { return []Toolchain{Go, Cargo, CMake, Meson, Autotools, Swift, Make} }

// aliases maps other common names to a toolchain.
var aliases = map[string]Toolchain{
	"golang":   Go,
	"rust":     Cargo,
	"ctest":    CMake,
	"autoconf": Autotools,
	"automake": Autotools,
	"swiftpm":  Swift,
	"spm":      Swift,
	"gmake":    Make,
}

// ErrXcode says the project or toolchain asked for is Xcode's, which the
// xcode workflow serves, not this package.
var ErrXcode = errors.New("xcode projects are built and tested by the xcode workflow (xcode_build, xcode_test)")

// UnknownToolchainError reports a toolchain name Parse does not know.
type UnknownToolchainError struct {
	Name  string
	Known []Toolchain
}

func (e *UnknownToolchainError) Error() string {
	names := make([]string, len(e.Known))
	for i, t := range e.Known {
		names[i] = string(t)
	}
	return fmt.Sprintf("unknown toolchain %q: known toolchains are %s", e.Name, strings.Join(names, ", "))
}

// Parse returns the toolchain a name designates, case-insensitively, also
// accepting common aliases (golang, rust, ctest, swiftpm). Xcode names return
// an error wrapping ErrXcode; other unknown names an *UnknownToolchainError.
func Parse(name string) (Toolchain, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, t := range Known() {
		if n == string(t) {
			return t, nil
		}
	}
	if t, ok := aliases[n]; ok {
		return t, nil
	}
	switch n {
	case "xcode", "xcodebuild":
		return "", fmt.Errorf("toolchain %q: %w", name, ErrXcode)
	}
	return "", &UnknownToolchainError{Name: name, Known: Known()}
}
