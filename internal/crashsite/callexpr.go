package crashsite

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// MaxExpr bounds an argument expression read from a call line: a longer
// one is not named (the sentence is for a glance, the source is shown).
const MaxExpr = 80

var identRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// passedExpr reads, on a caller's call line, the expression passed for
// the parameter param of a call of callee (a debugger's function name:
// "f", "ns::klass::f(int) const", "main.f", "crate::m::f") whose frame's
// arguments are params, in order. It says nothing ("") whenever it is not
// sure: the callee's name is not a plain identifier, the line calls it
// other than exactly once, the call does not close on the line, the count
// of arguments differs from the frame's (but for a receiver the frame
// lists first, this or self), or the expression is long.
func passedExpr(line, callee string, params []string, param string) string {
	name, pos := baseName(callee), slices.Index(params, param)
	if pos < 0 || !identRE().MatchString(name) {
		return ""
	}
	open := -1
	for i := strings.Index(line, name); i >= 0; {
		if isCall(line, i, name) {
			if open >= 0 {
				return "" // called twice: which one is not known
			}
			open = i + len(name) + strings.IndexByte(line[i+len(name):], '(')
		}
		next := strings.Index(line[i+1:], name)
		if next < 0 {
			break
		}
		i += 1 + next
	}
	if open < 0 {
		return ""
	}
	args, ok := splitArgs(line[open+1:])
	if !ok {
		return ""
	}
	switch {
	case len(args) == len(params):
	case len(args) == len(params)-1 && (params[0] == "this" || params[0] == "self"):
		pos-- // a method called on its receiver
	default:
		return ""
	}
	if pos < 0 || pos >= len(args) || args[pos] == "" || len(args[pos]) > MaxExpr {
		return ""
	}
	return args[pos]
}

// baseName is the last component of a debugger's function name, without
// its parameter list or template arguments.
func baseName(fn string) string {
	if i := strings.IndexByte(fn, '('); i > 0 {
		fn = fn[:i]
	}
	if i := strings.IndexByte(fn, '<'); i > 0 {
		fn = fn[:i]
	}
	if i := strings.LastIndex(fn, "::"); i >= 0 {
		fn = fn[i+2:]
	}
	if i := strings.LastIndexByte(fn, '.'); i >= 0 {
		fn = fn[i+1:]
	}
	return fn
}

// isCall reports whether name at i in line is a whole identifier followed
// by "(" (spaces between allowed).
func isCall(line string, i int, name string) bool {
	if i > 0 && isIdentByte(line[i-1]) {
		return false
	}
	rest := line[i+len(name):]
	if rest != "" && isIdentByte(rest[0]) {
		return false
	}
	return strings.HasPrefix(strings.TrimLeft(rest, " \t"), "(")
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// splitArgs splits a call's arguments, s starting just after its "(", at
// the commas outside brackets, strings and characters; ok is false when
// the call does not close in s. No arguments is an empty list.
func splitArgs(s string) (args []string, ok bool) {
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\'':
			end := closeQuote(s, i)
			if end < 0 {
				return nil, false
			}
			i = end
		case '(', '[', '{':
			depth++
		case ']', '}':
			depth--
		case ')':
			if depth == 0 {
				return appendArg(args, s[start:i]), true
			}
			depth--
		case ',':
			if depth == 0 {
				args = append(args, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return nil, false
}

// appendArg adds the last argument; "f()" has none.
func appendArg(args []string, last string) []string {
	last = strings.TrimSpace(last)
	if last == "" && len(args) == 0 {
		return nil
	}
	return append(args, last)
}

// closeQuote is the index of the quote closing the one at i, -1 when the
// line ends first.
func closeQuote(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case s[i]:
			return j
		}
	}
	return -1
}
