package server

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/workflow/doctor"
)

// DoctorURI is the resource that carries the doctor report as JSON.
const DoctorURI = "triage://doctor"

func addResources(s *mcp.Server, svc *services.Set) {
	s.AddResource(&mcp.Resource{
		URI:         DoctorURI,
		Name:        "doctor",
		Title:       "triage doctor report",
		Description: "What triage can use on this machine: tools and versions, core dump and ptrace settings, store, config.",
		MIMEType:    "application/json",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		b, err := json.MarshalIndent(doctor.Inspect(ctx, svc), "", "  ")
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: DoctorURI, MIMEType: "application/json", Text: string(b)}}}, nil
	})
}
