package postmortem

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
)

// CommandKey is the cache key of one command's output on one dump:
// "<dump12>/<engine>:<verb>:<hash12>[@<context>]". dumpID is the dump's
// ContentHash (its first 12 hex digits are used). The command is normalized
// first (see normalizeCommand). The context is part of the key only for commands
// whose output depends on it, so "bt" under two tasks is two entries and
// "log" is one.
//
// cacheable is false for commands whose output must not be reused: context
// switches, crash commands that write or run shell commands, gdb/lldb
// commands that change state, and drgn code that binds names or imports.
func CommandKey(dumpID string, engine Engine, command string, ctx Context) (key string, cacheable bool) {
	norm := normalizeCommand(command)
	sum := sha256.Sum256([]byte(string(engine) + "\x00" + norm))
	verb := firstWord(norm)
	if len(verb) > 24 || !keyVerbRE().MatchString(verb) {
		verb = "_"
	}
	key = shortID(dumpID) + "/" + string(engine) + ":" + verb + ":" + hex.EncodeToString(sum[:6])
	if contextDependent(engine, norm) {
		if ck := ctx.Key(); ck != "" {
			key += "@" + ck
		}
	}
	return key, isCacheable(engine, norm)
}

var keyVerbRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_*?.-]+$`) })

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	if id == "" {
		return "nodump"
	}
	return id
}

// normalizeCommand trims a command and, when it is one line without quotes,
// collapses blank runs so "bt  -a" and "bt -a" share an entry. Multi-line
// code (drgn) keeps its layout, indentation being syntax, and quoted text
// keeps its spaces.
func normalizeCommand(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	if strings.Contains(cmd, "\n") || strings.ContainsAny(cmd, `"'`) {
		return cmd
	}
	return strings.Join(strings.Fields(cmd), " ")
}

// Commands whose output depends on the current task/CPU (crash) or the
// selected thread/frame (gdb, lldb).
var (
	crashContextual = setOf("bt", "task", "vm", "files", "rd", "net", "sig", "fuser", "ps", "foreach", "for", "set", "p", "px", "pd", "struct", "union", "*", "dis")
	debugContextual = setOf(
		// gdb
		"bt", "backtrace", "where", "frame", "f", "info", "locals", "args", "p", "print",
		"x", "display", "list", "l", "disassemble", "finish", "up", "down", "registers",
		// lldb
		"thread", "register", "variable", "v", "var", "expression", "expr", "po", "memory",
		"disassemble", "source",
	)
)

// contextDependent decides whether the context goes into the key. For crash,
// the listed verbs read the current task (p and struct can name task-relative
// per-cpu data); for gdb and lldb almost everything evaluates in the selected
// frame; drgn has no implicit context.
func contextDependent(engine Engine, cmd string) bool {
	verb := firstWord(cmd)
	switch engine {
	case EngineCrash:
		return crashContextual[verb]
	case EngineGDB, EngineLLDB:
		return debugContextual[verb]
	}
	return false
}

var (
	// drgn code that binds or rebinds names, imports, or defines: running it
	// again is not the same as reading its old output.
	drgnStatefulRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)(^|[;\s])(import|from|def|class|del|global)\s|(^|[^=!<>])=[^=]|\bexec\(|\bexecscript\(`)
	})
	// crash commands that write memory, change settings or reach the shell.
	crashNeverCache = setOf("wr", "set", "alias", "extend", "repeat", "q", "quit", "exit", "gdb", "hex", "dec", "!", "sh")
	debugNeverCache = setOf("thread", "t", "frame", "f", "up", "down", "select-frame",
		"set", "call", "run", "r", "continue", "c", "step", "s", "next", "n", "kill", "shell", "!",
		"quit", "q", "define", "source", "script", "command", "settings", "target", "file", "core", "core-file",
		// scripting and host commands: what they do is not in their output
		"python", "py", "python3", "pi", "python-interactive", "guile", "gu", "pipe", "|", "make",
		"platform", "sc", "scr")
)

func isCacheable(engine Engine, cmd string) bool {
	if cmd == "" {
		return false
	}
	verb := firstWord(cmd)
	switch engine {
	case EngineCrash:
		// "!cmd" runs a shell command; "| sh" pipes through one; "> file"
		// writes one ("->" is a member access).
		return !crashNeverCache[verb] && !strings.HasPrefix(cmd, "!") && !strings.Contains(cmd, "|") &&
			strings.Count(cmd, ">") == strings.Count(cmd, "->")
	case EngineGDB, EngineLLDB:
		return !debugNeverCache[verb] && !strings.HasPrefix(cmd, "!") && !strings.Contains(cmd, "=")
	case EngineDrgn:
		return !drgnStatefulRE().MatchString(cmd)
	}
	return false
}
