package logfilter

import (
	"bytes"
	"strconv"
)

const maxMessage = 500 // bytes of a message kept in a Diagnostic

// newDiagnostic builds the Diagnostic of a classified line. It runs only for
// the first MaxDiagnostics diagnostics, so it may allocate.
func newDiagnostic(line []byte, c class) Diagnostic {
	d := Diagnostic{Kind: c.kind, Tool: c.tool, Count: 1}
	body, _ := trimIndent(line)
	body = trimGlyph(body)
	if c.tool == "cmake" && hasPrefix(body, "CMake ") {
		if i := bytes.Index(body, []byte(" at ")); i >= 0 {
			d.File, d.Line, d.Col, _ = parseLocation(body[i+4:])
		}
		d.Message = cut(body)
		return d
	}
	if c.tool == "swift-testing" {
		// "✘ Test f() recorded an issue at File.swift:17:9: Expectation failed: ..."
		if i := bytes.LastIndex(body, []byte(" at ")); i >= 0 {
			if file, ln, col, rest := parseLocation(body[i+4:]); file != "" {
				d.File, d.Line, d.Col = file, ln, col
				d.Message = cut(rest)
				return d
			}
		}
		d.Message = cut(body)
		return d
	}
	if file, ln, col, rest := parseLocation(body); file != "" {
		d.File, d.Line, d.Col = file, ln, col
		body = rest
	}
	d.Message = cut(trimSeverity(body))
	return d
}

// parseLocation splits "file:line[:col]: rest". file is empty when b does not
// start with a location.
func parseLocation(b []byte) (file string, line, col int, rest []byte) {
	i := bytes.IndexByte(b, ':')
	if i <= 0 {
		return "", 0, 0, b
	}
	ln, n := leadingInt(b[i+1:])
	if n == 0 {
		return "", 0, 0, b
	}
	file, line = string(b[:i]), ln
	rest = b[i+1+n:]
	if len(rest) > 1 && rest[0] == ':' {
		if c, m := leadingInt(rest[1:]); m > 0 {
			col, rest = c, rest[1+m:]
		}
	}
	rest = bytes.TrimLeft(rest, ": ")
	return file, line, col, rest
}

func leadingInt(b []byte) (int, int) {
	n := 0
	for n < len(b) && n < 9 && isDigit(b[n]) {
		n++
	}
	if n == 0 {
		return 0, 0
	}
	v, _ := strconv.Atoi(string(b[:n]))
	return v, n
}

func trimGlyph(b []byte) []byte {
	if len(b) > 0 && b[0] >= 0x80 {
		if i := bytes.IndexByte(b, ' '); i > 0 && i <= 8 {
			return bytes.TrimLeft(b[i:], " ")
		}
	}
	return b
}

func trimSeverity(b []byte) []byte {
	for _, p := range []string{"fatal error: ", "error: ", "warning: ", "note: "} {
		if hasPrefix(b, p) {
			return b[len(p):]
		}
	}
	return b
}

func cut(b []byte) string {
	if len(b) > maxMessage {
		b = b[:maxMessage]
	}
	return string(b)
}
