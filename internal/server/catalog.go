package server

import (
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/workflow/bisect"
	"github.com/triage-dev/triage/internal/workflow/debug"
	"github.com/triage-dev/triage/internal/workflow/device"
	"github.com/triage-dev/triage/internal/workflow/doctor"
	"github.com/triage-dev/triage/internal/workflow/dump"
	"github.com/triage-dev/triage/internal/workflow/macos"
	"github.com/triage-dev/triage/internal/workflow/observe"
	"github.com/triage-dev/triage/internal/workflow/output"
	"github.com/triage-dev/triage/internal/workflow/run"
	"github.com/triage-dev/triage/internal/workflow/session"
	"github.com/triage-dev/triage/internal/workflow/simulator"
	"github.com/triage-dev/triage/internal/workflow/ui"
	"github.com/triage-dev/triage/internal/workflow/xcode"
)

// Catalog lists every workflow triage knows, in tools/list order.
func Catalog(svc *services.Set) *catalog.Catalog {
	return &catalog.Catalog{Workflows: []*catalog.Workflow{
		session.Workflow(svc),
		run.Workflow(svc),
		xcode.Workflow(svc),
		simulator.Workflow(svc),
		device.Workflow(svc),
		macos.Workflow(svc),
		ui.Workflow(svc),
		debug.Workflow(svc),
		observe.Workflow(svc),
		bisect.Workflow(svc),
		dump.Workflow(svc),
		output.Workflow(svc),
		doctor.Workflow(svc),
	}}
}
