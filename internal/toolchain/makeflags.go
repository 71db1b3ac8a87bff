package toolchain

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// debugFlagVars are the variables through which make builds by convention
// (GNU coding standards, automake, implicit rules) take compiler flags.
var debugFlagVars = []string{"CFLAGS", "CXXFLAGS"}

// makeDebugFlags returns what makes a make build carry debug info where
// the project honours the usual variables: command-line assignments
// (VAR=value -g) for variables the Makefile assigns, and environment
// overrides for those it leaves to the environment. A variable the caller
// sets (in env or in args), one whose value has debug info already, and one
// the Makefile assigns in a way its text alone cannot tell (under a
// conditional, with override) are left alone. A coverage run adds
// --coverage the same way to CFLAGS, CXXFLAGS and LDFLAGS, the caller's
// own values included (see coverArgs for those given in args).
func makeDebugFlags(dir string, o Options) (args []string, env map[string]string) {
	assigned := makefileFlags(o.files(), dir)
	clang := o.Coverage && clangPath(makeCompiler(dir, o), o) != ""
	setEnv := func(v, val string) {
		if env == nil {
			env = map[string]string{}
		}
		env[v] = val
	}
	for _, v := range makeFlagVars(o.Coverage) {
		want := wantedFlags(v, o.Coverage, clang)
		if val, ok := o.Env[v]; ok {
			if o.Coverage {
				setEnv(v, withFlags(val, coverFlags(v, clang)))
			}
			continue
		}
		if argsAssign(o.Args, v) {
			continue
		}
		a, ok := assigned[v]
		switch {
		case !ok:
			base := localEnv(o, v)
			if add := missingFlags(base, want); add != "" {
				setEnv(v, strings.TrimSpace(base+" "+add))
			}
		case a.unknown:
		default:
			if add := missingFlags(a.value, want); add != "" {
				args = append(args, v+"="+strings.TrimSpace(a.value+" "+add))
			}
		}
	}
	return args, env
}

// makeFlagVars are the variables a make plan adds flags to.
func makeFlagVars(coverage bool) []string {
	if coverage {
		return []string{"CFLAGS", "CXXFLAGS", "LDFLAGS"}
	}
	return debugFlagVars
}

// wantedFlags are the flags a make plan wants in v.
func wantedFlags(v string, coverage, clang bool) []string {
	var want []string
	if v != "LDFLAGS" {
		want = append(want, "-g")
	}
	if coverage {
		want = append(want, coverFlags(v, clang)...)
	}
	return want
}

// missingFlags are the flags of want that flags lacks ("-g" as
// hasDebugInfo judges it), space-separated.
func missingFlags(flags string, want []string) string {
	var add []string
	for _, w := range want {
		if w == "-g" && hasDebugInfo(flags) || w != "-g" && withFlag(flags, w) == flags {
			continue
		}
		add = append(add, w)
	}
	return strings.Join(add, " ")
}

// coverArgs adds the coverage flags (see coverFlags) to the flag variables
// make's arguments assign, for a coverage run (a later assignment on
// make's command line would replace triage's).
func coverArgs(args []string, coverage, clang bool) []string {
	if !coverage {
		return args
	}
	out := append([]string(nil), args...)
	for i, a := range out {
		name, value, ok := strings.Cut(a, "=")
		v := strings.TrimRight(strings.TrimSpace(name), "+:?!")
		if ok && slices.Contains(makeFlagVars(true), v) {
			out[i] = name + "=" + withFlags(value, coverFlags(v, clang))
		}
	}
	return out
}

// argsAssign reports whether make's arguments assign v (VAR=..., VAR+=...).
func argsAssign(args []string, v string) bool {
	for _, a := range args {
		name, _, ok := strings.Cut(a, "=")
		if ok && strings.TrimRight(strings.TrimSpace(name), "+:?!") == v {
			return true
		}
	}
	return false
}

// hasDebugInfo reports whether compiler flags ask for debug info: the last
// -g option decides, and -g0 turns it off.
func hasDebugInfo(flags string) bool {
	on := false
	for _, f := range strings.Fields(flags) {
		if strings.HasPrefix(f, "-g") && !strings.HasPrefix(f, "-gno-") {
			on = f != "-g0"
		}
	}
	return on
}

// flagValue is what a Makefile's own text gives a variable.
type flagValue struct {
	value   string
	unknown bool // assigned under a conditional or with override
}

// makeAssignment is "VAR = value" and its kin (:=, ::=, ?=, +=), with an
// optional export.
var makeAssignment = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(override\s+)?(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(::=|:=|\?=|\+=|!=|=)\s*(.*)$`)
})

// makefileFlags reads the assignments of the flag variables (CFLAGS,
// CXXFLAGS, LDFLAGS) in the project's Makefile, in order.
func makefileFlags(fsys Files, dir string) map[string]flagValue {
	return makefileVars(fsys, dir, isFlagVar)
}

// makefileVars reads the assignments of the variables want selects (flag
// or compiler variables). One plan's questions parse its Makefile once
// (readOnce keeps what it found).
func makefileVars(fsys Files, dir string, want func(string) bool) map[string]flagValue {
	var all map[string]flagValue
	if r, ok := fsys.(*readOnce); ok {
		all = r.makeVars(dir)
	} else {
		all = readMakeVars(fsys, dir)
	}
	vals := map[string]flagValue{}
	for k, v := range all {
		if want(k) {
			vals[k] = v
		}
	}
	return vals
}

// isMakeVar selects every variable a plan asks the Makefile about.
func isMakeVar(name string) bool { return isFlagVar(name) || isCompilerVar(name) }

// readMakeVars reads the assignments of every variable isMakeVar selects
// in the first Makefile of dir that make would read.
func readMakeVars(fsys Files, dir string) map[string]flagValue {
	vals := map[string]flagValue{}
	for _, name := range makefiles {
		f, err := fsys.Open(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		defer f.Close()
		readFlags(io.LimitReader(f, maxMakefileScan), vals, isMakeVar)
		return vals
	}
	return vals
}

func readFlags(r io.Reader, vals map[string]flagValue, want func(string) bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4<<10), 1<<20) // grown for a long line
	depth := 0
	var line string
	for sc.Scan() {
		if b := sc.Bytes(); line == "" && (len(b) == 0 || b[0] == '\t') {
			continue // a recipe or an empty line, not continued: spared the string
		}
		line += sc.Text()
		if strings.HasSuffix(line, `\`) {
			line = strings.TrimSuffix(line, `\`) + " "
			continue
		}
		l := line
		line = ""
		if l == "" || l[0] == '\t' {
			continue
		}
		t := strings.TrimSpace(l)
		switch word, _, _ := strings.Cut(t, " "); word {
		case "ifeq", "ifneq", "ifdef", "ifndef":
			depth++
			continue
		case "endif":
			depth--
			continue
		}
		if !want(assignedName(t)) {
			continue // not an assignment of a wanted variable: most lines, spared the expression
		}
		m := makeAssignment().FindStringSubmatch(t)
		if m == nil || !want(m[2]) {
			continue
		}
		v := vals[m[2]]
		value, _, _ := strings.Cut(m[4], "#")
		switch {
		case depth > 0 || m[1] != "" || m[3] == "!=":
			v.unknown = true
		case m[3] == "+=":
			v.value = strings.TrimSpace(v.value + " " + value)
		case m[3] == "?=" && v.value != "":
		default:
			v.value = strings.TrimSpace(value)
		}
		vals[m[2]] = v
	}
}

// assignedName is the variable line would assign if it is an assignment:
// the word before its first '=' and the operator's other characters; ""
// where it has no '='. Where makeAssignment matches, it is the name that
// matches, so a line whose name is not wanted skips the expression.
func assignedName(line string) string {
	left, _, ok := strings.Cut(line, "=")
	if !ok {
		return ""
	}
	left = strings.TrimRight(strings.TrimRight(left, ":?+!"), " \t")
	return left[strings.LastIndexAny(left, " \t")+1:]
}

func isFlagVar(name string) bool { return slices.Contains(makeFlagVars(true), name) }

// MakeTakesFlags reports whether the flags a make plan passes can reach
// the Makefile's rules: it assigns none of CFLAGS, CXXFLAGS and LDFLAGS
// under a conditional or with override.
func MakeTakesFlags(dir string, o Options) bool {
	for _, a := range makefileFlags(o.files(), dir) {
		if a.unknown {
			return false
		}
	}
	return true
}

// MakeCompilesWithDebugInfo reports whether a make plan for dir with o
// compiles with -g: every flag variable either gets -g from triage (see
// makeDebugFlags) or has it in the value the caller or the Makefile
// gives. make recompiles nothing on a flag change, so objects built
// before still need a clean rebuild.
func MakeCompilesWithDebugInfo(dir string, o Options) bool {
	assigned := makefileFlags(o.files(), dir)
	for _, v := range debugFlagVars {
		if val, ok := o.Env[v]; ok {
			if !hasDebugInfo(val) {
				return false
			}
			continue
		}
		if val, ok := argsValue(o.Args, v); ok {
			if !hasDebugInfo(val) {
				return false
			}
			continue
		}
		if a, ok := assigned[v]; ok && a.unknown {
			return false
		}
	}
	return true
}

// argsValue is the value make's arguments assign to v (the last VAR=...;
// VAR+=... counts as the value given).
func argsValue(args []string, v string) (string, bool) {
	val, found := "", false
	for _, a := range args {
		name, value, ok := strings.Cut(a, "=")
		if ok && strings.TrimRight(strings.TrimSpace(name), "+:?!") == v {
			val, found = value, true
		}
	}
	return val, found
}

// localEnv is the value of v in the environment the step inherits: this
// process's, or "" for a project on another host, whose environment is
// not known here (the step then sets v to -g alone).
func localEnv(o Options, v string) string {
	if !local(o.files()) {
		return ""
	}
	return os.Getenv(v)
}
