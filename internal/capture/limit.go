package capture

import "strings"

// NameLimit says which time limit ran out, after the head of a timed-out
// verdict line ("TIMED OUT after 10m0s"), so that a reader knows what to
// raise; limit "" leaves line as it is:
//
//	TIMED OUT after 10m0s (the built-in limit; timeout_s raises it) — process group killed
//	TIMED OUT after 2m0s (the session default timeout_s) in the test step
func NameLimit(line, limit string) string {
	const head = "TIMED OUT after "
	rest, ok := strings.CutPrefix(line, head)
	if limit == "" || !ok {
		return line
	}
	d, tail, spaced := strings.Cut(rest, " ")
	line = head + d + " (" + limit + ")"
	if spaced {
		line += " " + tail
	}
	return line
}
