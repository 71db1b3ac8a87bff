package main

import (
	"context"
	"flag"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cmdDoctor is `triage call doctor` with a friendlier name.
func cmdDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	var g globals
	g.register(fs)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parseFlags(fs, args, stderr); err != nil {
		return 0, err
	}
	srv, svc, err := g.newServer(stderr, false)
	if err != nil {
		return 0, err
	}
	defer svc.Close()
	conn, err := connect(ctx, srv, nil)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	res, err := conn.client.CallTool(ctx, &mcp.CallToolParams{Name: "doctor", Arguments: map[string]any{}})
	if err != nil {
		return 0, err
	}
	format := "text"
	if *asJSON {
		format = "json"
	}
	if err := printResult(stdout, res, format); err != nil {
		return 0, err
	}
	return exitCode(res), nil
}
