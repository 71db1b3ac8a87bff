package toolchain

import "strings"

// A check's autotools build: configured out of tree in a build directory
// of its own (autotools-debug-asan…), with the sanitizer's flags given to
// configure as CFLAGS, CXXFLAGS and LDFLAGS, which configure keeps in
// config.status and every Makefile it writes uses after the project's own
// AM_CFLAGS (the project's flags stay, the sanitizer's are added).

// autotoolsSanitizeBase are the compile flags a check's build starts from
// where the caller gives none: debug info and little optimisation, which
// keeps the report's stacks and lines whole and the test's speed.
const autotoolsSanitizeBase = "-g -O1"

// autotoolsSanitizeArgs are configure's flag assignments of a check,
// after the caller's configure_args (configure takes the last
// assignment): the caller's CFLAGS/CXXFLAGS (configure_args', else env's)
// with -g and the sanitizer's flags added, else autotoolsSanitizeBase
// with them; LDFLAGS with -fsanitize, for the runtime.
func autotoolsSanitizeArgs(o Options) []string {
	var args []string
	for _, v := range debugFlagVars {
		base, given := givenFlags(o, v)
		if !given {
			base = autotoolsSanitizeBase
		} else if !hasDebugInfo(base) {
			base += " -g"
		}
		args = append(args, v+"="+strings.TrimSpace(base+" "+strings.Join(sanitizeFlags(o.Check), " ")))
	}
	ld, _ := givenFlags(o, "LDFLAGS")
	return append(args, "LDFLAGS="+strings.TrimSpace(ld+" -fsanitize="+sanitizer(o.Check)))
}

// givenFlags is the value the caller gives v: its last assignment in
// configure_args, else the environment's.
func givenFlags(o Options, v string) (string, bool) {
	for i := len(o.ConfigureArgs) - 1; i >= 0; i-- {
		if name, val, ok := strings.Cut(o.ConfigureArgs[i], "="); ok && name == v {
			return val, true
		}
	}
	val, ok := o.Env[v]
	return val, ok
}

// autotoolsSanitizeNote says what a check's build compiles with.
func autotoolsSanitizeNote(o Options) string {
	args := autotoolsSanitizeArgs(o)
	return "compiled for check " + o.Check + ": " + strings.Join(args, ", ")
}
