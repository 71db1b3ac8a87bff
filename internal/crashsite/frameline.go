package crashsite

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// SanitizerFrame reads one stack frame line of a sanitizer's report, in
// either of its two shapes: AddressSanitizer's (LeakSanitizer's,
// MemorySanitizer's and HWAddressSanitizer's are the same)
//
//	#0 0x55d4 in ns::klass::as_int(int) const /src/lib.cpp:14:35
//	#5 0x55d4 in _start (/src/asan+0x2e500) (BuildId: de5d…)
//	#2 0x7f24  (/lib/x86_64-linux-gnu/libc.so.6+0x29d8f)
//
// and ThreadSanitizer's, which has no address:
//
//	#0 bump /src/race.c:8 (race+0x11dc)
//	#1 <null> <null> (libc.so.6+0x8ec0)
//
// The function is all the symbolizer printed between the address and the
// location, spaces included: a C++ name carries its parameters and
// qualifiers ("operator<<(std::ostream&, X const&)", "foo()::{lambda(int)#1}::operator()(int) const",
// "(anonymous namespace)::f(int*, int)", "std::vector<int, std::allocator<int> >::at(unsigned long)"),
// a Rust one its impl ("<mycrate::A as core::fmt::Debug>::fmt"). The
// location is the last word outside brackets: "FILE:LINE[:COLUMN]", a
// path alone (some of Rust's std frames), or "(MODULE+0xOFFSET)". A line
// that is not a frame gives ok false.
func SanitizerFrame(line string) (Frame, bool) {
	num, rest, found := strings.Cut(strings.TrimSpace(line), " ")
	if !found || len(num) < 2 || num[0] != '#' || !digits(num[1:]) {
		return Frame{}, false
	}
	rest = strings.TrimLeft(rest, " ")
	if addr, after, spaced := strings.Cut(rest, " "); spaced && isHexAddr(addr) {
		after = strings.TrimLeft(after, " ")
		if body, in := strings.CutPrefix(after, "in "); in {
			rest = body
		} else if strings.HasPrefix(after, "(") {
			rest = after // "#2 0x7f24  (libc.so.6+0x29d8f)": no function
		} else {
			return Frame{}, false
		}
	}
	var f Frame
	rest, f.Module = cutModule(trimBuildID(rest))
	f.Function = rest
	if i := lastTopLevelSpace(rest); i >= 0 {
		if file, ln, isLoc := sourceLocation(rest[i+1:]); isLoc {
			f.Function, f.File, f.Line = strings.TrimRight(rest[:i], " "), file, ln
		}
	}
	if f.Function == "<null>" {
		f.Function = ""
	}
	return f, f.Function != "" || f.File != "" || f.Module != ""
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isHexAddr(s string) bool {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok || h == "" {
		return false
	}
	_, err := strconv.ParseUint(h, 16, 64)
	return err == nil
}

// trimBuildID drops the " (BuildId: …)" newer runtimes print after a module.
func trimBuildID(s string) string {
	if i := strings.LastIndex(s, " (BuildId: "); i >= 0 && strings.HasSuffix(s, ")") {
		return strings.TrimRight(s[:i], " ")
	}
	return s
}

// cutModule splits a trailing "(MODULE+0xOFFSET)" off s.
func cutModule(s string) (rest, module string) {
	if !strings.HasSuffix(s, ")") {
		return s, ""
	}
	i := strings.LastIndexByte(s, '(')
	if i < 0 || (i > 0 && s[i-1] != ' ') {
		return s, "" // "f(int)": a parameter list, not a module
	}
	mod, off, found := strings.Cut(s[i+1:len(s)-1], "+0x")
	if !found || mod == "" || strings.ContainsAny(off, " ()") {
		return s, ""
	}
	return strings.TrimRight(s[:i], " "), mod
}

// lastTopLevelSpace is the index of the last space in s outside
// parentheses, brackets and braces, or -1.
func lastTopLevelSpace(s string) int {
	depth, last := 0, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ' ':
			if depth == 0 {
				last = i
			}
		}
	}
	return last
}

var fileLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.+?):(\d+)(?::\d+)?$`) })

// sourceLocation reads a frame's location word: "f.c:12", "f.c:12:5", a
// path without a line, or "<null>" (none).
func sourceLocation(w string) (file string, line int, ok bool) {
	if w == "<null>" {
		return "", 0, true
	}
	if m := fileLineRE().FindStringSubmatch(w); m != nil {
		n, err := strconv.Atoi(m[2])
		return m[1], n, err == nil
	}
	if strings.ContainsAny(w, `/\`) && !strings.ContainsAny(w, "()<>") {
		return w, 0, true
	}
	return "", 0, false
}
