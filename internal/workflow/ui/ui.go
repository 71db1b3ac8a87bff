// Package ui is the `ui` workflow: iOS simulator UI automation through AXe
// (`axe` on PATH): read the screen's accessibility tree, compacted, and act
// on it (tap by point, label or id, long press, swipe, type, key, hardware
// button, gesture), with a screenshot after the action when asked. It is
// opt-in (`workflows:` in the config or a profile) and available on macOS
// with Xcode and AXe only; Options lets tests run it elsewhere against the
// fake axe.
package ui

import (
	"github.com/triage-dev/triage/internal/axe"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/xcode"
)

// Options configure the workflow; the zero value is right for production.
type Options struct {
	// Available reports why the tools cannot run here; nil means macOS
	// with Xcode and axe on PATH.
	Available func() error
}

func (o Options) available() func() error {
	if o.Available != nil {
		return o.Available
	}
	return func() error {
		if err := xcode.Available(); err != nil {
			return err
		}
		return axe.Available()
	}
}

// Workflow returns the ui workflow bound to svc.
func Workflow(svc *services.Set) *catalog.Workflow { return WorkflowWith(svc, Options{}) }

// WorkflowWith is Workflow with injected availability (tests).
func WorkflowWith(svc *services.Set, o Options) *catalog.Workflow {
	h := &handler{svc: svc}
	sim := defaults.Requirements{OneOf: [][]string{{"simulator_id", "simulator_name"}}}
	return &catalog.Workflow{
		ID:          "ui",
		Title:       "Simulator UI automation",
		Description: "Read a simulator's accessibility tree and tap, press, swipe, type through AXe (macOS with axe on PATH, opt-in).",
		OptIn:       true,
		Available:   o.available(),
		Tools: []*catalog.Tool{
			catalog.New("ui_describe", "A simulator screen's accessibility elements: type, label, id, value, frame, enabled (compacted, bounded).",
				catalog.Annotations{ReadOnly: true, OpenWorld: true}, catalog.WithDefaults(svc.Defaults, sim, h.describe)),
			catalog.New("ui_act", "One UI action on a simulator: tap, long_press, swipe, type, key, button or gesture; an unknown label lists the nearest.",
				catalog.Annotations{OpenWorld: true}, catalog.WithDefaults(svc.Defaults, sim, h.act)),
		},
	}
}

type handler struct {
	svc *services.Set
}
