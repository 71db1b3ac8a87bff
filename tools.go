//go:build tools

package tools

import (
	_ "github.com/google/go-dap"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "go.yaml.in/yaml/v3"
	_ "modernc.org/sqlite"
)
