package logfilter

import "bytes"

// Toolchain names returned by Detect.
const (
	ToolXcodebuild = "xcodebuild"
	ToolSwift      = "swift"
	ToolGo         = "go"
	ToolGoJSON     = "go-json"
	ToolCargo      = "cargo"
	ToolCMake      = "cmake"
	ToolMake       = "make"
	ToolGCC        = "gcc"
	ToolUnknown    = "unknown"
)

// Preference order when scores tie: the more specific markers first.
var toolOrder = [...]string{ToolGoJSON, ToolXcodebuild, ToolCargo, ToolSwift, ToolGo, ToolCMake, ToolMake, ToolGCC}

const (
	tGoJSON = iota
	tXcode
	tCargo
	tSwift
	tGo
	tCMake
	tMake
	tGCC
)

const detectLines = 5000 // lines looked at; later lines do not change the verdict

// detector scores lines for each toolchain.
type detector struct {
	seen   int
	scores [len(toolOrder)]int
}

// Detect names the toolchain that produced a log sample: one of the Tool*
// constants, ToolUnknown when nothing is recognised.
func Detect(sample []byte) string {
	var d detector
	var scratch []byte
	for len(sample) > 0 && d.seen < detectLines {
		line := sample
		if i := bytes.IndexByte(sample, '\n'); i >= 0 {
			line, sample = sample[:i], sample[i+1:]
		} else {
			sample = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if bytes.IndexByte(line, 0x1b) >= 0 {
			scratch = stripANSI(scratch[:0], line)
			line = scratch
		}
		d.observe(line)
	}
	return d.result()
}

func (d *detector) result() string {
	best, bestScore := ToolUnknown, 0
	for i, s := range d.scores {
		if s > bestScore {
			best, bestScore = toolOrder[i], s
		}
	}
	return best
}

func (d *detector) observe(line []byte) {
	if d.seen >= detectLines {
		return
	}
	d.seen++
	body, indent := trimIndent(line)
	if len(body) == 0 {
		return
	}
	s := &d.scores
	switch {
	case body[0] == '{' && bytes.Contains(body, []byte(`"Action":"`)):
		s[tGoJSON] += 5
	case hasPrefix(body, "** BUILD") || hasPrefix(body, "** TEST") || hasPrefix(body, "** CLEAN") || hasPrefix(body, "** ARCHIVE"),
		hasPrefix(body, "=== BUILD TARGET"), hasPrefix(body, "CompileSwift"), hasPrefix(body, "CompileC "),
		hasPrefix(body, "Testing failed:"), hasPrefix(body, "Failing tests:"), hasPrefix(body, "Test session results"),
		hasPrefix(body, "The following build commands failed:"), bytes.Contains(body, []byte("xcodebuild")):
		s[tXcode] += 3
	case hasPrefix(body, "Test Case '-[") || hasPrefix(body, "Test case '"):
		s[tXcode]++
		s[tSwift]++
	case indent > 0 && hasPrefix(body, "Compiling ") && bytes.Contains(body, []byte(" v")),
		indent > 0 && (hasPrefix(body, "Finished ") || hasPrefix(body, "Running ")),
		hasPrefix(body, "error[E"), hasPrefix(body, "test result:"), hasPrefix(body, "--> "):
		s[tCargo] += 3
	case hasPrefix(body, "running ") && bytes.HasSuffix(body, []byte(" tests")):
		s[tCargo] += 2
	case hasPrefix(body, "Build complete!"), hasPrefix(body, "Building for debugging"), hasPrefix(body, "Building for production"),
		hasPrefix(body, "Test run with "), hasPrefix(body, "Test Suite 'All tests'"):
		s[tSwift] += 3
	case body[0] == 0xE2 || body[0] == 0xF4:
		if c, ok := classifyGlyph(body); ok && c.tool == "swift-testing" {
			s[tSwift] += 2
		}
	case hasPrefix(body, "--- FAIL") || hasPrefix(body, "--- PASS") || hasPrefix(body, "=== RUN"),
		hasPrefix(body, "ok  \t") || hasPrefix(body, "FAIL\t"), hasPrefix(body, "panic: "):
		s[tGo] += 3
	case hasPrefix(body, "CMake Error") || hasPrefix(body, "CMake Warning"),
		hasPrefix(body, "-- Configuring") || hasPrefix(body, "-- Build files") || hasPrefix(body, "-- The C"):
		s[tCMake] += 3
	case hasPrefix(body, "[") && bytes.Contains(body[:min(len(body), 12)], []byte("%]")):
		s[tCMake] += 2
	case hasPrefix(body, "make: ") || hasPrefix(body, "make[") || hasPrefix(body, "gmake"):
		s[tMake] += 3
	case hasPrefix(body, "collect2: "), hasPrefix(body, "gcc ") || hasPrefix(body, "cc ") || hasPrefix(body, "g++ "):
		s[tGCC] += 2
	default:
		d.observeLocation(body, indent)
	}
}

// observeLocation credits "file.ext:line:col: severity:" lines to their compiler.
func (d *detector) observeLocation(body []byte, indent int) {
	if !hasLocation(body) || indent > 0 {
		return
	}
	switch toolForFile(body) {
	case "go":
		d.scores[tGo] += 2
	case "rustc":
		d.scores[tCargo] += 2
	case "swiftc":
		d.scores[tSwift]++
		d.scores[tXcode]++
	case "cc":
		d.scores[tGCC] += 2
	}
}
