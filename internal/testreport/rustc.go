package testreport

import "strings"

// rustc prints an error's location on the line after it:
//
//	error[E0308]: mismatched types
//	   --> src/lib.rs:485:29
//
// The build error is recorded as "src/lib.rs:485:29: error[E0308]:
// mismatched types", located as Go's and gcc's errors are.

// isRustcError reports a compiler error line whose location may follow:
// "error[E0308]: …", or "error: expected `;`, found `}`" (errors without
// a code). cargo's own "error: …" lines never have a location.
func isRustcError(line string) bool {
	return strings.HasPrefix(line, "error[E") ||
		strings.HasPrefix(line, "error: ") && !strings.HasPrefix(line, "error: could not compile")
}

// rustcBuildError is the build error that errLine, the line before next,
// makes: located when next is its "--> file:line:col"; an unlocated
// "error: …" line is cargo's, not the compiler's, and makes none ("").
func rustcBuildError(errLine, next string) string {
	t := strings.TrimSpace(next)
	if loc, ok := strings.CutPrefix(t, "--> "); ok && strings.Count(loc, ":") >= 1 && !strings.Contains(loc, " ") {
		return loc + ": " + errLine
	}
	if strings.HasPrefix(errLine, "error[E") {
		return errLine
	}
	return ""
}
