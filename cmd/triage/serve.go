package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/daemon"
	"github.com/triage-dev/triage/internal/identity"
	"github.com/triage-dev/triage/internal/server"
	"github.com/triage-dev/triage/internal/services"
)

// serveFlags are serve's own flags.
type serveFlags struct {
	http, tokenFile, unix string
	tokens, origins       []string
	admins                []string
	idle                  time.Duration
	noToken               bool
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.http, "http", "", "serve streamable HTTP on ADDR (host:port) instead of stdio; without --token a token is made for this run and printed on stderr")
	fs.BoolVar(&f.noToken, "no-token", false, "with --http on a loopback address: take no token, so that every local user may run programs as you")
	fs.Func("token", "bearer token required from HTTP clients; repeat it to give each client its own (default $TRIAGE_TOKEN)", func(s string) error {
		f.tokens = append(f.tokens, s)
		return nil
	})
	fs.StringVar(&f.tokenFile, "token-file", "", "file of bearer tokens, one a line, one per client")
	fs.Func("admin-token", "bearer token of an administrator, who sees and may act on what every client created (outputs, processes, debug and dump sessions); repeatable. With two tokens or more, each client sees only its own", func(s string) error {
		f.admins = append(f.admins, s)
		return nil
	})
	fs.Func("allow-origin", "browser origin (scheme://host:port) allowed besides the server's own; repeatable", func(s string) error {
		f.origins = append(f.origins, s)
		return nil
	})
	fs.StringVar(&f.unix, "unix", "", "serve the CLI's daemon on this unix socket (triage call starts it: see triage daemon)")
	fs.DurationVar(&f.idle, "idle", defaultIdle, "with --unix: end after this long with no call and nothing alive (0: never)")
}

func cmdServe(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var g globals
	g.register(fs)
	var f serveFlags
	f.register(fs)
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	tokens, made, err := serveTokens(f)
	if err != nil {
		return err
	}
	srv, svc, err := g.newServer(stderr, false)
	if err != nil {
		return err
	}
	// Disposing the services on the way out ends every session and reaps every
	// child, whatever stopped the server.
	defer svc.Close()
	switch {
	case f.unix != "":
		return serveDaemon(ctx, srv, svc, f)
	case f.http == "":
		svc.Log.Info("serving MCP over stdio", "workflows", svc.EnabledWorkflows)
		return srv.RunStdio(ctx)
	}
	o := server.HTTPOptions{Addr: f.http, Tokens: tokens, AdminTokens: f.admins, AllowOrigins: f.origins, Log: svc.Log}
	return srv.ServeHTTP(ctx, o, func(addr string) {
		svc.Log.Info("serving MCP over streamable HTTP", "url", "http://"+addr+"/", "workflows", svc.EnabledWorkflows, "tokens", len(tokens)+len(f.admins))
		if made {
			printMadeToken(stderr, addr, tokens[0])
		}
		logPage(svc, srv, addr, len(tokens)+len(f.admins), stderr)
	})
}

// serveTokens checks serve's token flags and returns the client tokens:
// those given, or, for --http without any (and without --no-token), one
// made for this run (made is true). Every token given must pass
// server.CheckToken; --no-token is for a loopback --http only.
func serveTokens(f serveFlags) (tokens []string, made bool, err error) {
	tokens, err = allTokens(f.tokens, f.tokenFile)
	if err != nil {
		return nil, false, err
	}
	if err := checkAdmins(f.admins, tokens); err != nil {
		return nil, false, err
	}
	given := len(tokens)+len(f.admins) > 0
	switch {
	case f.noToken && f.http == "":
		return nil, false, usagef("--no-token is for --http: stdio and the daemon's socket take no token")
	case f.noToken && given:
		return nil, false, usagef("--no-token and a token both given: drop one")
	case f.http != "" && !given && !f.noToken:
		tokens, made = []string{rand.Text()}, true // 26 base32 characters: 130 bits
	}
	if f.http != "" {
		if err := server.CheckAddr(f.http, strings.Join(append(tokens, f.admins...), "")); err != nil {
			return nil, false, usagef("%v (--no-token is for loopback only)", err)
		}
	}
	return tokens, made, nil
}

// printMadeToken tells, on stderr only (never the log, which may be a
// file), the token made for this run and how a client uses it.
func printMadeToken(stderr io.Writer, addr, token string) {
	fmt.Fprintf(stderr, "triage: MCP over HTTP at http://%s/ takes this token, made for this run (--token to choose one):\n"+
		"  Authorization: Bearer %s\n"+
		"  e.g. claude mcp add --transport http triage http://%s/ --header \"Authorization: Bearer %s\"\n", addr, token, addr, token)
}

// serveDaemon serves the CLI's daemon on its unix socket until stopped or
// idle; its socket and pid file go with it, and, when it ended cleanly,
// its lock and log files too (daemon.Leave).
func serveDaemon(ctx context.Context, srv *server.Server, svc *services.Set, f serveFlags) (err error) {
	p := daemon.FromSocket(f.unix)
	ln, remove, err := daemon.Listen(p)
	if err != nil {
		return err
	}
	defer func() {
		remove()
		if err == nil {
			daemon.Leave(p)
		}
	}()
	svc.Log.Info("serving MCP to the CLI", "socket", f.unix, "idle", f.idle, "workflows", svc.EnabledWorkflows)
	err = srv.ServeUnix(ctx, ln, server.UnixOptions{Idle: f.idle, Busy: svc.Busy, Status: asDaemon(p, svc)})
	svc.Log.Info("daemon ending", "err", err)
	return err
}

// checkAdmins refuses a blank admin token and one that is also a client's:
// that client would be the administrator.
func checkAdmins(admins, tokens []string) error {
	for _, a := range admins {
		if strings.TrimSpace(a) == "" {
			return usagef("a blank token would let no one in: give --admin-token a secret")
		}
		if err := server.CheckToken(a); err != nil {
			return usagef("--admin-token: %v", err)
		}
		if slices.Contains(tokens, a) {
			return usagef("an --admin-token is also a client's --token: give the administrator a token of its own")
		}
	}
	return nil
}

// allTokens gathers the tokens given (--token), else $TRIAGE_TOKEN, and
// those of the token file, refusing a blank one: it would let no client in.
func allTokens(tokens []string, file string) ([]string, error) {
	if len(tokens) == 0 && os.Getenv("TRIAGE_TOKEN") != "" {
		tokens = append(tokens, os.Getenv("TRIAGE_TOKEN"))
	}
	if file != "" {
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, usagef("reading --token-file: %v", err)
		}
		for _, l := range strings.Split(string(raw), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				tokens = append(tokens, l)
			}
		}
	}
	for _, t := range tokens {
		if err := server.CheckToken(t); err != nil {
			return nil, usagef("%v", err)
		}
	}
	return tokens, nil
}

// logPage tells how to open the web page: with one identity (no token, or
// one), a one-time login URL, printed on stderr and never logged (a log
// file outlives the code's use and may be read by others); with several,
// each client asks for its own with its token, so that its page shows its
// own state.
func logPage(svc *services.Set, srv *server.Server, addr string, tokens int, stderr io.Writer) {
	if tokens > 1 {
		svc.Log.Info("web page: POST "+server.LoginCodePath+" with a client's bearer token for its one-time login URL", "url", "http://"+addr+"/ui/")
		return
	}
	svc.Log.Info("web page: its one-time login URL is printed on stderr", "url", "http://"+addr+"/ui/")
	fmt.Fprintf(stderr, "triage: web page (the login URL works once): %s\n", srv.LoginURL("http://"+addr, identity.Server))
}
