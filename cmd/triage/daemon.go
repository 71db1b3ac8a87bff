package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/daemon"
	"github.com/triage-dev/triage/internal/spawn"
)

// defaultIdle is how long a daemon with nothing alive waits for a call
// before it ends (TRIAGE_DAEMON_IDLE overrides it).
const defaultIdle = 30 * time.Minute

// stateful reports a tool whose state must outlive one CLI invocation:
// background processes, debug and dump sessions, log captures, and the
// session defaults a later call reads.
func stateful(tool string) bool {
	for _, p := range []string{"process_", "debug_", "dump_", "session_"} {
		if strings.HasPrefix(tool, p) {
			return tool != "session_show_defaults"
		}
	}
	return tool == "sim_log_capture"
}

// daemonOff reports TRIAGE_DAEMON=off: every call runs in-process.
func daemonOff() bool { return os.Getenv("TRIAGE_DAEMON") == "off" }

// daemonPaths names the daemon of this directory and configuration.
func (g *globals) daemonPaths() (daemon.Paths, error) {
	wd, err := os.Getwd()
	if err != nil {
		return daemon.Paths{}, err
	}
	return daemon.For(daemon.Key(wd, g.settings()))
}

// settings are what shapes the server a call builds: the global flags and
// the TRIAGE_* environment (but not the daemon's own switches).
func (g *globals) settings() []string {
	s := []string{"config=" + g.config, "workflows=" + g.workflows, "store=" + g.store, "profile=" + g.profile}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TRIAGE_") && !strings.HasPrefix(kv, "TRIAGE_DAEMON") {
			s = append(s, kv)
		}
	}
	sort.Strings(s)
	return s
}

// serveArgs are the global flags a daemon is started with: the caller's.
func (g *globals) serveArgs() []string {
	var a []string
	for _, f := range [][2]string{{"config", g.config}, {"workflows", g.workflows}, {"store", g.store}, {"profile", g.profile}, {"log-level", g.logLevel}} {
		if f[1] != "" {
			a = append(a, "--"+f[0], f[1])
		}
	}
	return a
}

// dialDaemon connects an MCP client to the daemon of p; start says to start
// one when none answers (or the one that answers dies in the handshake: a
// daemon being killed). note tells the user what happened when a daemon
// had to be replaced.
func (g *globals) dialDaemon(ctx context.Context, p daemon.Paths, start bool, progress func(*mcp.ProgressNotificationParams)) (cs *mcp.ClientSession, note string, err error) {
	cs, err = connectDaemon(ctx, p, progress)
	// A daemon that dies as it is reached (killed) is found stale on the
	// next try, once the kernel has it gone; three tries are plenty. One
	// that does not answer (stopped) is still there: another is not started
	// beside it.
	for try := 0; err != nil && start && !errors.Is(err, daemon.ErrNotResponding) && try < 3; try++ {
		var n string
		if n, err = g.startDaemon(ctx, p); err == nil {
			cs, err = connectDaemon(ctx, p, progress)
		}
		if n != "" {
			note = n
		}
	}
	return cs, note, err
}

// connectDaemon opens an MCP session with the daemon of p.
func connectDaemon(ctx context.Context, p daemon.Paths, progress func(*mcp.ProgressNotificationParams)) (*mcp.ClientSession, error) {
	conn, err := daemon.Dial(ctx, p)
	if err != nil {
		return nil, err
	}
	opts := &mcp.ClientOptions{}
	if progress != nil {
		opts.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { progress(r.Params) }
	}
	// The handshake is bounded: a stopped daemon's socket still accepts,
	// and the call would wait for its answer for ever.
	deadline := time.Now().Add(2 * daemon.PingWithin)
	conn.SetDeadline(deadline)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "triage-cli", Version: versionString()}, opts).
		Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
	switch {
	case err != nil && !time.Now().Before(deadline): // the SDK's error need not wrap the timeout
		conn.Close()
		return nil, daemon.NotResponding(p, err)
	case err != nil:
		conn.Close()
		return nil, fmt.Errorf("talking to the daemon on %s: %w", p.Socket, err)
	}
	conn.SetDeadline(time.Time{}) // a call may take as long as it takes
	return cs, nil
}

// pageURL asks the daemon of p, started when none answers, to serve the
// web page on addr, and returns the one-time login URL it gives; note
// tells the user what happened when a daemon had to be replaced.
func (g *globals) pageURL(ctx context.Context, p daemon.Paths, addr string) (url, note string, err error) {
	conn, err := daemon.Dial(ctx, p)
	for try := 0; err != nil && try < 3; try++ {
		var n string
		if n, err = g.startDaemon(ctx, p); err == nil {
			conn, err = daemon.Dial(ctx, p)
		}
		if n != "" {
			note = n
		}
	}
	if err != nil {
		return "", note, fmt.Errorf("the web page is served by the CLI's daemon: %w (TRIAGE_DAEMON=off serves it from this process)", err)
	}
	defer conn.Close()
	url, err = daemon.RequestPage(ctx, conn, addr)
	return url, note, err
}

// startDaemon starts the daemon under its lock, unless another caller
// started it meanwhile, and waits until it answers.
func (g *globals) startDaemon(ctx context.Context, p daemon.Paths) (string, error) {
	unlock, err := daemon.Lock(p)
	if err != nil {
		return "", err
	}
	defer unlock()
	if !daemon.Stale(p) {
		if c, err := daemon.Dial(ctx, p); err == nil {
			c.Close()
			return "", nil // another call started it meanwhile
		}
	}
	note := ""
	if daemon.Stale(p) {
		note = fmt.Sprintf("triage: the daemon for this directory had ended without cleaning up (pid %d, killed?); started a new one: the background processes and debug and dump sessions of the old one are gone\n", daemon.ReadPid(p))
	}
	exe, err := os.Executable()
	if err != nil {
		return note, err
	}
	wd, _ := os.Getwd()
	argv := append([]string{exe, "serve", "--unix", p.Socket, "--idle", idleFromEnv().String()}, g.serveArgs()...)
	d, err := spawn.Detach(argv, wd, os.Environ(), p.Log)
	if err != nil {
		return note, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return note, daemon.WaitReady(ctx, p, d.Exited)
}

// idleFromEnv is the daemon's idle time: TRIAGE_DAEMON_IDLE (a Go
// duration), else defaultIdle.
func idleFromEnv() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("TRIAGE_DAEMON_IDLE")); err == nil && d >= 0 {
		return d
	}
	return defaultIdle
}

// cmdDaemon runs `triage daemon status|stop [--all]`.
func cmdDaemon(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	var g globals
	g.register(fs)
	all := fs.Bool("all", false, "every daemon of yours, of any directory and configuration")
	const what = "usage: triage daemon status|stop [--all] [flags]\n  status or stop the daemon that keeps stateful tools between calls (one per directory and configuration; --all: every one of yours)"
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprintln(stdout, what)
		return exitOK, nil
	}
	if len(args) == 0 || (args[0] != "status" && args[0] != "stop") {
		if len(args) > 0 {
			fmt.Fprintf(stderr, "triage daemon: unknown subcommand %q\n", args[0])
		}
		fmt.Fprintln(stderr, what)
		return exitUsage, nil
	}
	if err := parseFlags(fs, args[1:], stderr); err != nil {
		return 0, err
	}
	p, err := g.daemonPaths()
	if err != nil {
		return 0, err
	}
	switch {
	case args[0] == "status" && *all:
		return statusAll(ctx, p, stdout)
	case args[0] == "stop" && *all:
		return stopAll(ctx, stdout)
	case args[0] == "status":
		return statusHere(ctx, p, stdout)
	}
	pid := daemon.ReadPid(p)
	if pid == 0 || daemon.Stale(p) || !fileExists(p.Socket) {
		fmt.Fprintf(stdout, "no daemon for this directory (%s) and configuration\n", cwd())
		return exitOK, nil
	}
	return exitOK, stopDaemon(ctx, p, pid, stdout)
}

// statusHere prints the status of the daemon of this directory and
// configuration (p): the directory, pid, uptime and what it holds; exit 1
// when there is none or it does not answer.
func statusHere(ctx context.Context, p daemon.Paths, stdout io.Writer) (int, error) {
	pid := daemon.ReadPid(p)
	if pid == 0 || daemon.Stale(p) || !fileExists(p.Socket) {
		fmt.Fprintf(stdout, "no daemon for this directory (%s) and configuration\n", cwd())
		if others, _ := daemon.All(); len(others) > 0 {
			fmt.Fprintf(stdout, "%d other daemon(s) of yours: `triage daemon status --all` lists them\n", len(others))
		}
		return exitFailure, nil
	}
	s, err := daemon.AskStatus(ctx, p)
	if errors.Is(err, daemon.ErrNotResponding) {
		fmt.Fprintf(stdout, "daemon not responding: %v\n", err)
		return exitFailure, nil
	}
	if err != nil && !errors.Is(err, daemon.ErrNoStatus) {
		return 0, err
	}
	holds := s.Holds()
	if err != nil {
		holds = err.Error()
	}
	fmt.Fprintf(stdout, "daemon running: pid %d, up %s, serving %s\n  holds: %s\n  socket %s, log %s\n", pid, uptime(s.Started), cwd(), holds, p.Socket, p.Log)
	return exitOK, nil
}

// stopDaemon asks the daemon to end (SIGTERM: it stops every child it owns
// first) and waits until it has ended, its files removed.
func stopDaemon(ctx context.Context, p daemon.Paths, pid int, stdout io.Writer) error {
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stopping the daemon (pid %d): %w", pid, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	pause := time.Millisecond
	for !daemon.Gone(pid) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("the daemon (pid %d) did not stop within 30 s: see %s", pid, p.Log)
		case <-time.After(pause):
		}
		pause = min(2*pause, 100*time.Millisecond)
	}
	fmt.Fprintf(stdout, "daemon stopped (pid %d)\n", pid)
	return nil
}

func fileExists(path string) bool {
	_, err := os.Lstat(filepath.Clean(path))
	return err == nil
}
