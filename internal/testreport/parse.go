package testreport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
)

// Input formats. The xcodebuild, swift and swift-testing names are aliases
// of FormatXCTest: those tools print XCTest and Swift Testing lines in one
// stream.
const (
	FormatGoJSON = "go-json"
	FormatCargo  = "cargo"
	FormatCTest  = "ctest"
	FormatJUnit  = "junit"
	FormatXCTest = "xctest"
)

// ErrUnknownFormat is returned for a format name Parse does not know, and by
// ParseAuto when the input matches no format.
var ErrUnknownFormat = errors.New("unknown test output format")

// Parse reads a test run's output in the given format.
func Parse(format string, r io.Reader) (*Report, error) {
	var (
		rep *Report
		err error
	)
	switch strings.ToLower(format) {
	case FormatGoJSON, "go", "gotest":
		rep, err = parseGoJSON(r)
	case FormatGoText, "gotext":
		rep, err = parseGoText(r)
	case FormatCargo, "rust", "libtest":
		rep, err = parseCargo(r)
	case FormatNextest, "cargo-nextest":
		rep, err = parseNextest(r)
	case FormatCTest:
		rep, err = parseCTest(r)
	case FormatAutomake, "make-check":
		rep, err = parseAutomake(r)
	case FormatMeson, "mesontest":
		rep, err = parseMeson(r)
	case FormatMesonTestlog:
		rep, err = ParseMesonTestlog(r)
	case FormatJUnit, "xml":
		rep, err = parseJUnit(r)
	case FormatXCTest, "xcodebuild", "swift", "swift-testing", "swiftpm":
		rep, err = parseApple(r)
	case FormatBoostTest, "boost":
		rep, err = parseBoostTest(r)
	case FormatCheck, "libcheck":
		rep, err = parseCheck(r)
	case FormatCmocka:
		rep, err = parseCmocka(r)
	case FormatCriterion:
		rep, err = parseCriterion(r)
	case FormatCUnit:
		rep, err = parseCUnit(r)
	case FormatUnity:
		rep, err = parseUnity(r)
	case FormatTAP, "prove":
		rep, err = parseTAP(r)
	case FormatGTest, "googletest":
		rep, err = parseGTest(r)
	case FormatCatch2, "catch":
		rep, err = parseCatch2(r)
	case FormatDoctest:
		rep, err = parseDoctest(r)
	default:
		return nil, fmt.Errorf("parsing test output as %q: %w", format, ErrUnknownFormat)
	}
	if err != nil {
		return nil, err
	}
	rep.finish()
	return rep, nil
}

// sniffSize is how much input ParseAuto looks at to choose a format.
const sniffSize = 64 << 10

// ParseAuto detects the format from the start of the input, then parses it.
func ParseAuto(r io.Reader) (*Report, error) {
	br := bufio.NewReaderSize(r, sniffSize)
	sample, err := br.Peek(sniffSize)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("reading test output: %w", err)
	}
	format := DetectFormat(sample)
	if format != "" {
		return Parse(format, br)
	}
	if len(bytes.TrimSpace(sample)) == 0 {
		return nil, fmt.Errorf("detecting test output format: empty input: %w", ErrUnknownFormat)
	}
	// Build logs without a test line yet (a failed compile, a long build
	// before the tests): the xcodebuild/swift reader knows compiler and
	// linker errors and runner failures.
	rep, err := Parse(FormatXCTest, br)
	if err != nil {
		return nil, err
	}
	rep.Notes = append(rep.Notes, "test output format not recognised in the first 64 KiB; read as xcodebuild/swift text")
	return rep, nil
}

// DetectFormat names the format of a sample of test output, or "".
func DetectFormat(sample []byte) string {
	trimmed := bytes.TrimLeft(sample, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(trimmed, []byte("<?xml")) || bytes.HasPrefix(trimmed, []byte("<testsuite")):
		return FormatJUnit
	case bytes.Contains(sample, []byte(`"Action":"`)):
		return FormatGoJSON
	case isNextest(sample): // before the others: its tests' output is in its log
		return FormatNextest
	case bytes.Contains(sample, []byte("Test Case '")) || bytes.Contains(sample, []byte("Test case '")) ||
		bytes.Contains(sample, []byte("Test run with")) || bytes.Contains(sample, []byte("Test run started")) ||
		bytes.Contains(sample, []byte("** TEST")) || bytes.Contains(sample, []byte("** BUILD")) ||
		bytes.Contains(sample, []byte("Testing failed:")) || bytes.Contains(sample, []byte("Test Suite '")):
		return FormatXCTest
	case isMesonOutput(sample):
		// Before automake and cargo: under -v meson prints its tests' own
		// output, which may hold "PASS: x" or "running 3 tests".
		return FormatMeson
	case automakeLineRE().Match(sample):
		// Before cargo's "running ": autotools logs say "running CONFIG_SHELL=…".
		return FormatAutomake
	case isGoText(sample): // before cargo's "running ": a Go test may print it
		return FormatGoText
	case bytes.Contains(sample, []byte("test result: ")) || bytes.Contains(sample, []byte("\nrunning ")):
		return FormatCargo
	case bytes.Contains(sample, []byte(" Test #")) || bytes.Contains(sample, []byte("tests failed out of")):
		return FormatCTest
	case frameworkFormat(sample) != "": // after CTest, whose log holds its programs' output
		return frameworkFormat(sample)
	case detectFramework(sample) != "": // TAP, GoogleTest, Catch2, doctest: frameworkout.go
		return detectFramework(sample)
	}
	return ""
}

// automakeLineRE finds automake's harness in a sample: a test's result
// line, or the summary's tally.
var automakeLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:(?:PASS|FAIL|XFAIL|XPASS|SKIP|ERROR): \S+|# TOTAL: +\d+)\r?$`)
})

// maxLine caps the length of one line; the rest of a longer line is dropped.
const maxLine = 256 << 10

// lines calls fn for each line of r, without its line ending. Lines longer
// than maxLine are cut.
func lines(r io.Reader, fn func(line string)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for {
		frag, err := br.ReadSlice('\n')
		if room := maxLine - len(buf); room > 0 {
			buf = append(buf, frag[:min(len(frag), room)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(buf) > 0 {
			fn(stripANSI(string(bytes.TrimRight(buf, "\r\n"))))
		}
		buf = buf[:0]
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading test output: %w", err)
		}
	}
}

// stripANSI removes colour escape sequences (xcbeautify, cargo --color).
func stripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		i++
	}
	return b.String()
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
