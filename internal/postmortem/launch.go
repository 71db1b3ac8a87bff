package postmortem

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"sync"

	"github.com/triage-dev/triage/internal/repl"
	"github.com/triage-dev/triage/internal/toolpath"
)

// Target is what a session analyses: a kernel dump and its vmlinux, or a
// process core and its executable, possibly on another host.
type Target struct {
	Kernel  bool
	Vmcore  string // kernel dump
	Vmlinux string // with debug info, matching the dump
	Core    string // process core
	Program string // the executable that dumped Core
	// SSHHost runs every engine on that host, through the host's one ssh
	// connection (internal/remote); the paths are the remote host's.
	SSHHost string
	// ExtraArgs are appended to an engine's argv (before the dump operands
	// for gdb and lldb, whose operands must come last).
	ExtraArgs map[Engine][]string
}

// ErrEngineMissing: the engine's binary is not installed (locally, or ssh
// for a remote session).
var ErrEngineMissing = errors.New("engine not installed")

// engineTools are the programs of the engines, found by toolpath.
var engineTools = map[Engine]toolpath.Tool{
	EngineCrash: toolpath.Crash,
	EngineDrgn:  toolpath.Drgn,
	EngineGDB:   toolpath.GDB,
	EngineLLDB:  toolpath.LLDB,
}

// lookEngine finds e's binary.
func lookEngine(e Engine) (string, error) {
	p, err := engineTools[e].Find()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrEngineMissing, err)
	}
	return p, nil
}

// Prompts set through each engine's argv, stripped from output.
var (
	gdbPrompt  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(triage-gdb\) `) })
	lldbPrompt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(triage-lldb\) ?`) })
)

// engineConfig builds the repl configuration of engine e on t. The engine
// binary is resolved locally, or named bare for a remote session (the
// session wraps the argv in ssh when it starts the engine).
func engineConfig(e Engine, t Target) (repl.Config, error) {
	if t.Kernel != e.Kernel() && e != EngineDrgn {
		return repl.Config{}, fmt.Errorf("%w: %s", ErrWrongEngine, e)
	}
	configure, ok := engineConfigs[e]
	if !ok {
		return repl.Config{}, fmt.Errorf("%w %q", ErrUnknownEngine, e)
	}
	bin := engineTools[e].Name
	if t.SSHHost == "" {
		p, err := lookEngine(e)
		if err != nil {
			return repl.Config{}, err
		}
		bin = p
	}
	return configure(bin, t, t.ExtraArgs[e]), nil
}

// engineConfigs build each engine's repl configuration from its binary, the
// target and the caller's extra arguments.
var engineConfigs = map[Engine]func(bin string, t Target, extra []string) repl.Config{
	EngineCrash: crashConfig,
	EngineDrgn:  drgnConfig,
	EngineGDB:   gdbConfig,
	EngineLLDB:  lldbConfig,
}

func crashConfig(bin string, t Target, extra []string) repl.Config {
	// Piped stdin: crash prints no prompt and echoes nothing.
	return repl.Config{
		Argv:        append(append([]string{bin, "-s", "--no_scroll"}, extra...), t.Vmlinux, t.Vmcore),
		Sentinel:    crashSentinel(),
		QuitCommand: "quit",
	}
}

func drgnConfig(bin string, t Target, extra []string) repl.Config {
	argv := []string{bin, "-q"}
	if t.Kernel {
		argv = append(argv, "-c", t.Vmcore, "-s", t.Vmlinux)
	} else {
		argv = append(argv, "-c", t.Core)
		if t.Program != "" {
			argv = append(argv, "-s", t.Program)
		}
	}
	// Piped stdin runs Python's console: no prompts; commands go through
	// drgnRunner so multi-line code is one line.
	return repl.Config{
		Argv:         append(argv, extra...),
		Sentinel:     repl.SumSentinel("%d+%d"),
		InitCommands: []string{"import sys; sys.ps1 = sys.ps2 = ''", drgnInit},
		QuitCommand:  "exit()",
	}
}

func gdbConfig(bin string, t Target, extra []string) repl.Config {
	argv := []string{bin, "-nx", "-q",
		"-iex", "set prompt (triage-gdb) ", "-iex", "set pagination off",
		"-iex", "set confirm off", "-iex", "set width 0", "-iex", "set height 0"}
	argv = append(argv, extra...)
	argv = append(argv, "-c", t.Core, t.Program)
	return repl.Config{Argv: argv, Prompt: gdbPrompt(), QuitCommand: "quit"}
}

func lldbConfig(bin string, t Target, extra []string) repl.Config {
	argv := []string{bin, "--no-lldbinit",
		"-O", `settings set prompt "(triage-lldb) "`, "-O", "settings set use-color false",
		"-O", "settings set auto-confirm true"}
	argv = append(argv, extra...)
	argv = append(argv, "--core", t.Core, "--", t.Program)
	return repl.Config{Argv: argv, Prompt: lldbPrompt(),
		// `p` needs a usable frame; embedded Python does not.
		Sentinel: repl.SumSentinel("script print(%d+%d)"), QuitCommand: "quit"}
}

// crashSentinel asks crash to `eval A+B`. crash prints four lines
// (hexadecimal, decimal, octal, binary) whatever the output radix; the
// output ends where the hexadecimal line of the sum starts, and the matching
// decimal line proves it is ours.
func crashSentinel() repl.SentinelFunc {
	var b [8]byte
	_, _ = rand.Read(b[:])
	base := 300_000_000 + int64(binary.LittleEndian.Uint64(b[:])%600_000_000)
	return func(n int64) repl.Sentinel {
		sum := base + n + 1
		re := regexp.MustCompile(fmt.Sprintf(`(?m)^\s*hexadecimal: %x\b.*\n\s*decimal: %d\b`, sum, sum))
		return repl.Sentinel{
			Command: fmt.Sprintf("eval %d+%d", base, n+1),
			Done: func(text string) int {
				loc := re.FindStringIndex(text)
				if loc == nil {
					return -1
				}
				return loc[0]
			},
		}
	}
}

// drgnInit defines the function every drgn command runs through: the code
// arrives base64-encoded on one line, compiles as one interactive statement
// when it can (so an expression's value prints, as at the console) and as a
// module otherwise, and runs in the console's namespace, which persists.
var drgnInit = "import base64 as __triage_b64; exec(__triage_b64.b64decode('" +
	base64.StdEncoding.EncodeToString([]byte(`def __triage_run(src):
    src = __triage_b64.b64decode(src).decode()
    try:
        code = compile(src, '<dump_command>', 'single')
    except SyntaxError:
        code = compile(src, '<dump_command>', 'exec')
    exec(code, globals())
`)) + "').decode())"

// drgnLine turns Python code (one or more lines) into the one line sent to
// drgn.
func drgnLine(code string) string {
	return "__triage_run('" + base64.StdEncoding.EncodeToString([]byte(code)) + "')"
}
