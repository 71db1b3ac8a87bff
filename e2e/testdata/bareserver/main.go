// Command bareserver is the baseline for triage's cold-start benchmark: a bare
// go-sdk MCP server with one tool, served over stdio.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type in struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

type out struct {
	Greeting string `json:"greeting" jsonschema:"the greeting"`
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Say hello."}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, out, error) {
		return nil, out{"hello " + a.Name}, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
