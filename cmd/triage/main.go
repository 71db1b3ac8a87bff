// Command triage builds, tests, runs, debugs and post-mortems native software
// for AI agents (over the Model Context Protocol) and people (over this CLI),
// and never mistakes a crash for a success.
//
//	triage serve [--http ADDR] [--token T]... [--admin-token T] [--no-token]   serve MCP over stdio or streamable HTTP
//	triage tools [--json|--markdown] [--all] list the enabled tools
//	triage call TOOL [--json '{...}'] [--KEY VALUE ...] [--output text|json]
//	triage TOOL ...                          the same
//	triage daemon status|stop                the daemon that keeps stateful tools between calls
//	triage doctor [--json]                   what triage can use on this machine
//	triage init [--client NAME] [--print]    install agent skills for the agent clients found here
//	triage filter [--toolchain T] [--level L] [--output text|json] [FILE]
//	triage version
//
// Exit status: 0 success, 1 when a tool reports a failure or crash, 2 on usage
// errors.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"syscall"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/server"
	"github.com/triage-dev/triage/internal/services"
)

// toolName is what a tool's name looks like (run, debug_attach): a command
// that is none of triage's own and looks like one is a tool to call.
var toolName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`) })

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// version is set at link time (-ldflags "-X main.version=..."); otherwise the
// module version from build info is used.
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopProfile := startProfile(os.Getenv("TRIAGE_CPUPROFILE"))
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stopProfile()
	stop()
	os.Exit(code)
}

// startProfile writes a CPU profile to path (TRIAGE_CPUPROFILE) until the
// returned function is called; it is how the hot paths are profiled.
func startProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "triage: TRIAGE_CPUPROFILE: %v\n", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "triage: TRIAGE_CPUPROFILE: %v\n", err)
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// usageError is a command-line mistake: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

const usage = `usage: triage <command> [flags]

commands:
  serve     serve MCP over stdio (default) or streamable HTTP (--http ADDR)
  tools     list the enabled tools (--json, --markdown, --all)
  call      run one tool: triage call TOOL [--json '{...}'] [--KEY VALUE ...] [--output text|json]
            (or just: triage TOOL ...); triage call TOOL --help describes it
  daemon    status|stop: the daemon that keeps stateful tools (process_*, debug_*, dump_*,
            session defaults) alive between calls; a call that needs it starts it
  doctor    report what triage can use on this machine (--json)
  ui        have the CLI's daemon serve the web page on loopback; print (and open) a one-time login URL (--no-browser)
  init      install agent skills for the agent clients found here (--client NAME, --print)
  filter    filter a build or test log from stdin or FILE: verdict, kept lines, test summary
  version   print the version

global flags (any command): --config FILE, --workflows a,b, --store PATH, --profile NAME,
  --log-level debug|info|warn|error, --log-file FILE
Run 'triage <command> -h' for a command's flags.`

// command runs one of triage's commands and returns its exit status; an
// error is printed and decides the status instead.
type command func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error)

// noCode adapts a command that succeeds or fails only.
func noCode(f func(ctx context.Context, args []string, stdout, stderr io.Writer) error) command {
	return func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
		return exitOK, f(ctx, args, stdout, stderr)
	}
}

var commands = map[string]command{
	"serve": func(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) (int, error) {
		return exitOK, cmdServe(ctx, args, stderr)
	},
	"tools": noCode(cmdTools),
	"call": func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
		return cmdCall(ctx, args, stdout, stderr)
	},
	"daemon": func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
		return cmdDaemon(ctx, args, stdout, stderr)
	},
	"doctor": func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
		return cmdDoctor(ctx, args, stdout, stderr)
	},
	"ui": noCode(cmdUI),
	"init": func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
		return cmdInit(ctx, args, stdout, stderr)
	},
	"filter": func(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
		return cmdFilter(args, stdin, stdout, stderr)
	},
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "version", "--version":
		fmt.Fprintf(stdout, "triage %s\n", versionString())
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return exitOK
	}
	f, ok := commands[cmd]
	switch {
	case !ok && toolName().MatchString(cmd):
		f, rest = commands["call"], args // triage TOOL ... is triage call TOOL ...
	case !ok:
		f = func(context.Context, []string, io.Reader, io.Writer, io.Writer) (int, error) {
			return 0, usagef("unknown command %q\n%s", cmd, usage)
		}
	}
	code, err := f(ctx, rest, stdin, stdout, stderr)
	if err == nil {
		return code
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK // the flag set printed the command's usage, as asked
	}
	fmt.Fprintf(stderr, "triage %s: %v\n", cmd, err)
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailure
}

// globals are the flags every command accepts.
type globals struct {
	config, workflows, store, profile string
	logLevel, logFile                 string
	logClose                          func() error
}

func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.config, "config", os.Getenv("TRIAGE_CONFIG"), "config file (default: nearest .triage/config.yaml)")
	fs.StringVar(&g.workflows, "workflows", "", "comma-separated workflows to enable (default: all available)")
	fs.StringVar(&g.store, "store", "", "output store path (\":memory:\" keeps nothing)")
	fs.StringVar(&g.profile, "profile", "", "active defaults profile")
	fs.StringVar(&g.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&g.logFile, "log-file", "", "write logs to this file instead of stderr")
}

// services loads the configuration (file, then TRIAGE_* env, then flags) and
// builds the shared services. Config warnings are logged.
func (g *globals) services(stderr io.Writer) (*services.Set, error) {
	log, err := g.logger(stderr)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(g.config, os.Environ())
	if err != nil {
		return nil, usagef("%v", err)
	}
	if g.workflows != "" {
		cfg.Workflows = config.SplitList(g.workflows)
	}
	if g.store != "" {
		cfg.Store.Path = g.store
	}
	if g.profile != "" {
		cfg.Profile = g.profile
	}
	if err := cfg.Validate(); err != nil {
		return nil, usagef("%v", err)
	}
	for _, w := range cfg.Warnings {
		log.Warn(w)
	}
	svc, err := services.New(cfg, log, versionString())
	if err != nil {
		return nil, usagef("%v", err)
	}
	if g.logClose != nil {
		svc.OnClose(g.logClose)
	}
	return svc, nil
}

func (g *globals) logger(stderr io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(g.logLevel)); err != nil {
		return nil, usagef("--log-level %q: use debug, info, warn or error", g.logLevel)
	}
	w := stderr
	if g.logFile != "" {
		f, err := openLogFile(g.logFile)
		if err != nil {
			return nil, err
		}
		w, g.logClose = f, f.Close
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), nil
}

// openLogFile opens the log file for appending, private to the user: logs
// name the programs run and their directories, and the page's login URLs.
// A file of the user's made with wider modes (by an earlier version) is
// tightened; another user's is used as it is.
func openLogFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening log file: %w", err)
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == os.Geteuid() {
			f.Chmod(0o600)
		}
	}
	return f, nil
}

// newServer builds the services and the MCP server over them.
func (g *globals) newServer(stderr io.Writer, all bool) (*server.Server, *services.Set, error) {
	svc, err := g.services(stderr)
	if err != nil {
		return nil, nil, err
	}
	srv, err := server.New(svc, server.Options{AllWorkflows: all})
	if err != nil {
		svc.Close()
		return nil, nil, usagef("%v", err)
	}
	return srv, svc, nil
}

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// parseFlags parses a command's flags, reporting -h as help and mistakes as
// usage errors.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%v", err)
	}
	return nil
}
