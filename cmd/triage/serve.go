package main

import (
	"context"
	"flag"
	"io"
	"os"

	"github.com/triage-dev/triage/internal/server"
)

func cmdServe(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var g globals
	g.register(fs)
	httpAddr := fs.String("http", "", "serve streamable HTTP on ADDR (host:port; loopback unless --token is set) instead of stdio")
	token := fs.String("token", os.Getenv("TRIAGE_TOKEN"), "bearer token required from HTTP clients (default $TRIAGE_TOKEN)")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *httpAddr != "" {
		if err := server.CheckAddr(*httpAddr, *token); err != nil {
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
	return srv.ServeHTTP(ctx, server.HTTPOptions{Addr: *httpAddr, Token: *token}, func(addr string) {
		svc.Log.Info("serving MCP over streamable HTTP", "url", "http://"+addr+"/", "workflows", svc.EnabledWorkflows, "token", *token != "")
	})
}
