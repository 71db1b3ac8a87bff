package main

import (
	"context"
	"flag"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/server"
)

func cmdServe(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var g globals
	g.register(fs)
	httpAddr := fs.String("http", "", "serve streamable HTTP on ADDR (host:port; loopback unless --token is set) instead of stdio")
	var tokens, origins []string
	fs.Func("token", "bearer token required from HTTP clients; repeat it to give each client its own (default $TRIAGE_TOKEN)", func(s string) error {
		tokens = append(tokens, s)
		return nil
	})
	tokenFile := fs.String("token-file", "", "file of bearer tokens, one a line, one per client")
	var admins []string
	fs.Func("admin-token", "bearer token of an administrator, who sees and may act on what every client created (outputs, processes, debug and dump sessions); repeatable. With two tokens or more, each client sees only its own", func(s string) error {
		admins = append(admins, s)
		return nil
	})
	fs.Func("allow-origin", "browser origin (scheme://host:port) allowed besides the server's own; repeatable", func(s string) error {
		origins = append(origins, s)
		return nil
	})
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	tokens, err := allTokens(tokens, *tokenFile)
	if err != nil {
		return err
	}
	if err := checkAdmins(admins, tokens); err != nil {
		return err
	}
	if *httpAddr != "" {
		if err := server.CheckAddr(*httpAddr, strings.Join(append(tokens, admins...), "")); err != nil {
			return usagef("%v", err)
		}
	}
	srv, svc, err := g.newServer(stderr, false)
	if err != nil {
		return err
	}
	// Disposing the services on the way out ends every session and reaps every
	// child, whatever stopped the server.
	defer svc.Close()
	if *httpAddr == "" {
		svc.Log.Info("serving MCP over stdio", "workflows", svc.EnabledWorkflows)
		return srv.RunStdio(ctx)
	}
	return srv.ServeHTTP(ctx, server.HTTPOptions{Addr: *httpAddr, Tokens: tokens, AdminTokens: admins, AllowOrigins: origins}, func(addr string) {
		svc.Log.Info("serving MCP over streamable HTTP", "url", "http://"+addr+"/", "workflows", svc.EnabledWorkflows, "tokens", len(tokens))
	})
}

// checkAdmins refuses a blank admin token and one that is also a client's:
// that client would be the administrator.
func checkAdmins(admins, tokens []string) error {
	for _, a := range admins {
		if strings.TrimSpace(a) == "" {
			return usagef("a blank token would let no one in: give --admin-token a secret")
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
		if strings.TrimSpace(t) == "" {
			return nil, usagef("a blank token would let no client in: give --token (or TRIAGE_TOKEN) a secret")
		}
	}
	return tokens, nil
}
