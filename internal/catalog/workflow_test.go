package catalog

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func nop(context.Context, *Call, struct{}) (Result[struct{}], error) { return Result[struct{}]{}, nil }

func TestSelectToolAvailability(t *testing.T) {
	hidden := New("sim_only", "Needs Xcode.", Annotations{}, nop)
	hidden.Available = func() error { return errors.New("needs Xcode on macOS") }
	shown := New("always", "Runs anywhere.", Annotations{}, nop)
	fine := New("fine", "Available.", Annotations{}, nop)
	fine.Available = func() error { return nil }
	c := &Catalog{Workflows: []*Workflow{{ID: "debug", Tools: []*Tool{shown, hidden, fine}}}}
	sel, err := c.Select(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Tools) != 2 || sel.Tools[0] != shown || sel.Tools[1] != fine {
		t.Errorf("tools = %v, want always and fine", sel.Tools)
	}
	if r := sel.Absent["sim_only"]; !strings.Contains(r, "sim_only is unavailable here: needs Xcode on macOS") {
		t.Errorf("absent reason = %q", r)
	}
	if len(c.SelectAll().Tools) != 3 {
		t.Error("SelectAll leaves out an unavailable tool")
	}
}

// TestSelectOptIn: an opt-in workflow is left out of the default selection
// (saying how to enable it) and enabled when named.
func TestSelectOptIn(t *testing.T) {
	c := &Catalog{Workflows: []*Workflow{
		{ID: "run", Tools: []*Tool{New("run", "Run.", Annotations{}, nop)}},
		{ID: "device", OptIn: true, Tools: []*Tool{New("device_list", "List.", Annotations{}, nop)}},
	}}
	sel, err := c.Select(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Tools) != 1 || sel.Tools[0].Name != "run" || !strings.Contains(sel.Absent["device_list"], `workflow "device", which is not enabled`) {
		t.Errorf("default: tools %v, absent %v", sel.Tools, sel.Absent)
	}
	if sel, _ = c.Select([]string{"run", "device"}); len(sel.Tools) != 2 || !sel.IsEnabled("device") {
		t.Errorf("named: tools %v", sel.Tools)
	}
}

// TestSelectOptional: the tools of an available workflow left out are
// offered to profiles (Optional, OptionalOf); an unavailable workflow's
// are not, nor an enabled one's.
func TestSelectOptional(t *testing.T) {
	c := &Catalog{Workflows: []*Workflow{
		{ID: "run", Tools: []*Tool{New("run", "Run.", Annotations{}, nop)}},
		{ID: "device", OptIn: true, Tools: []*Tool{New("device_list", "List.", Annotations{}, nop)}},
		{ID: "ui", OptIn: true, Available: func() error { return errors.New("axe is not on PATH") },
			Tools: []*Tool{New("ui_describe", "Describe.", Annotations{}, nop)}},
	}}
	sel, err := c.Select(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Optional) != 1 || sel.Optional[0].Name != "device_list" || sel.OptionalOf["device_list"] != "device" || sel.OptionalOf["run"] != "" {
		t.Errorf("optional %v, of %v", sel.Optional, sel.OptionalOf)
	}
	if !strings.Contains(sel.Absent["ui_describe"], "unavailable here: axe is not on PATH") {
		t.Errorf("absent: %v", sel.Absent)
	}
	if sel, _ = c.Select([]string{"device"}); len(sel.Optional) != 1 || sel.Optional[0].Name != "run" {
		t.Errorf("named: optional %v", sel.Optional)
	}
}
