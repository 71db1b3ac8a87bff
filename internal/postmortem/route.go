package postmortem

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Route is where one command goes, and why.
type Route struct {
	Engine  Engine `json:"engine"`
	Command string `json:"command"` // the command with any engine prefix removed
	Reason  string `json:"reason"`  // RouteExplicit, RoutePrefix, RouteCrashVerb, RoutePython or RouteDefault
}

// Route reasons.
const (
	RouteExplicit  = "explicit"   // the caller named the engine
	RoutePrefix    = "prefix"     // "drgn: ..." and friends
	RouteCrashVerb = "crash-verb" // the first word is a crash command
	RoutePython    = "python"     // the command reads as Python, for drgn
	RouteDefault   = "default"    // nothing else matched
)

var (
	// ErrUnknownPrefix: the command starts with "word:" and word is no engine.
	ErrUnknownPrefix = errors.New("unknown engine prefix")
	// ErrEngineConflict: an explicit engine and a different prefix.
	ErrEngineConflict = errors.New("explicit engine and command prefix disagree")
	// ErrWrongEngine: the engine cannot analyse this kind of dump.
	ErrWrongEngine = errors.New("engine cannot analyse this dump")
	// ErrEmptyCommand: nothing to run after trimming and removing the prefix.
	ErrEmptyCommand = errors.New("empty command")
)

// Router routes commands for one dump. The zero Router is for a process
// core, with gdb as its default engine.
type Router struct {
	// Kernel is set for kernel dumps: crash and drgn, crash by default.
	// Otherwise gdb, lldb and drgn, Default (gdb when empty) by default.
	Kernel  bool
	Default Engine
}

// Route picks the engine for command. In order: an explicit engine; an
// engine prefix ("crash:", "drgn:", "gdb:", "lldb:", any case); for kernel
// dumps, Python-looking code goes to drgn and a crash command to crash;
// otherwise the default engine. A leading "word:" where word is no engine and
// no Python keyword is ErrUnknownPrefix, so a mistyped prefix is never sent
// to an engine as a command; with an explicit engine such a command is sent
// as it is (Python such as "x: int = 1" needs explicit drgn).
func (r Router) Route(command string, explicit Engine) (Route, error) {
	cmd := strings.TrimSpace(command)
	prefixed, rest, err := splitPrefix(cmd)
	if err != nil && explicit == "" {
		return Route{}, err
	}
	if prefixed != "" {
		cmd = strings.TrimSpace(rest)
	}
	if cmd == "" {
		return Route{}, ErrEmptyCommand
	}
	var route Route
	switch {
	case explicit != "":
		e, err := ParseEngine(string(explicit))
		if err != nil {
			return Route{}, err
		}
		if prefixed != "" && prefixed != e {
			return Route{}, fmt.Errorf("%w: engine %s, prefix %q", ErrEngineConflict, e, string(prefixed)+":")
		}
		route = Route{Engine: e, Command: cmd, Reason: RouteExplicit}
	case prefixed != "":
		route = Route{Engine: prefixed, Command: cmd, Reason: RoutePrefix}
	case r.Kernel:
		route = routeKernel(cmd)
	default:
		route = Route{Engine: r.DefaultEngine(), Command: cmd, Reason: RouteDefault}
	}
	if err := r.check(route.Engine); err != nil {
		return Route{}, err
	}
	return route, nil
}

// DefaultEngine is the engine a command without a prefix goes to when nothing
// else picks one: crash for kernel dumps, else Default (gdb when empty).
func (r Router) DefaultEngine() Engine {
	switch {
	case r.Kernel:
		return EngineCrash
	case r.Default != "":
		return r.Default
	}
	return EngineGDB
}

func (r Router) check(e Engine) error {
	if e == EngineDrgn || r.Kernel == e.Kernel() {
		return nil
	}
	what := "a process core"
	if r.Kernel {
		what = "a kernel dump"
	}
	return fmt.Errorf("%w: %s does not read %s", ErrWrongEngine, e, what)
}

func routeKernel(cmd string) Route {
	switch {
	case strongPython(cmd):
		return Route{Engine: EngineDrgn, Command: cmd, Reason: RoutePython}
	case crashVerbs[firstWord(cmd)]:
		return Route{Engine: EngineCrash, Command: cmd, Reason: RouteCrashVerb}
	case weakPython(cmd):
		return Route{Engine: EngineDrgn, Command: cmd, Reason: RoutePython}
	}
	return Route{Engine: EngineCrash, Command: cmd, Reason: RouteDefault}
}

// prefixRE matches "word:" at the start, but not "word::" (C++ scope) or
// "word:=" (a walrus).
var prefixRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*):([^:=]|$)`) })

// splitPrefix returns the engine of a "name:" prefix and the text after it.
func splitPrefix(cmd string) (Engine, string, error) {
	m := prefixRE().FindStringSubmatch(cmd)
	if m == nil || pythonKeywords[m[1]] {
		return "", cmd, nil
	}
	e, err := ParseEngine(m[1])
	if err != nil {
		return "", "", fmt.Errorf("%w %q (want crash:, drgn:, gdb: or lldb:, or pass the engine explicitly)", ErrUnknownPrefix, m[1]+":")
	}
	return e, cmd[len(m[1])+1:], nil
}

func firstWord(cmd string) string {
	if i := strings.IndexAny(cmd, " \t\n|>"); i >= 0 {
		return cmd[:i]
	}
	return cmd
}

var (
	// A statement only Python starts with, or an assignment/call/subscript/
	// attribute access right on the first token ("t = ...", "f(x)", "prog[...]").
	strongPythonRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:` +
			`(?:import|from|def|class|with|while|try|lambda|raise|assert|del|global|nonlocal|async|await|return|yield)\b` +
			`|(?:for|if|elif)\b.*:\s*(?:#.*)?(?:$|\n)` +
			`|for\s+[\w, ()]+\s+in\s` +
			`|[A-Za-z_]\w*(?:\.\w+|\[[^\]]*\])*\s*(?:[-+*/%&|^]|//|<<|>>|\*\*)?=[^=]` +
			`|[A-Za-z_]\w*[(\[.]` +
			`)`)
	})
	// Python-ish anywhere: drgn's prog object or a drgn helper.
	weakPythonRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bprog\s*[\[.]|\bfor_each_\w+\(|\bcontainer_of\(|\bObject\(`)
	})
)

func strongPython(cmd string) bool { return strongPythonRE().MatchString(cmd) }
func weakPython(cmd string) bool   { return weakPythonRE().MatchString(cmd) }

var pythonKeywords = setOf("else", "try", "finally", "lambda", "except", "class", "def",
	"if", "elif", "for", "while", "with", "match", "case")

// crashVerbs are crash 8's commands ("help" lists them) and its built-in aliases.
var crashVerbs = setOf(
	"*", "alias", "ascii", "bpf", "bt", "btop", "dev", "dis", "eval", "exit", "extend",
	"files", "foreach", "fuser", "gdb", "help", "ipcs", "irq", "kmem", "list", "log",
	"mach", "mod", "mount", "net", "p", "ps", "pte", "ptob", "ptov", "q", "rd", "repeat",
	"runq", "sbitmapq", "search", "set", "sig", "struct", "swap", "sym", "sys", "task",
	"timer", "tree", "union", "vm", "vtop", "waitq", "whatis", "wr",
	// aliases
	"quit", "man", "?", "hex", "dec", "g", "px", "pd", "for", "size", "dmesg", "last", "lsmod",
	// common extensions
	"epython", "pykdump", "xportshow", "crashinfo",
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
