package catalog

import (
	"fmt"
	"slices"
	"strings"
)

// Workflow is a group of tools enabled together.
type Workflow struct {
	ID          string
	Title       string
	Description string
	// AlwaysOn workflows are enabled whatever the configuration says.
	AlwaysOn bool
	// OptIn workflows are enabled only when the configuration names them:
	// their tools would cost every session tokens few sessions use.
	OptIn bool
	// Available, if set, reports why the workflow cannot run here (nil: it can).
	Available func() error
	Tools     []*Tool
}

// Catalog is the ordered list of every workflow triage knows.
type Catalog struct {
	Workflows []*Workflow
}

// Selection is the outcome of applying a configuration to a catalog.
type Selection struct {
	// Tools are the tools to register, in stable order: workflow order, then
	// each workflow's own order.
	Tools []*Tool
	// Enabled are the workflows whose tools are registered.
	Enabled []*Workflow
	// Absent maps the name of each tool that is not registered to the reason.
	Absent map[string]string
	// Optional are the tools of workflows available here but not enabled
	// (also in Absent): a session whose active profile names their
	// workflow sees and calls them. OptionalOf maps each to its workflow.
	Optional   []*Tool
	OptionalOf map[string]string
}

// Select enables the named workflows (all available ones but the opt-in
// ones when names is empty) plus the always-on ones. An unknown name is an error listing the known ones.
func (c *Catalog) Select(names []string) (*Selection, error) {
	want := make(map[string]bool, len(names))
	for _, n := range names {
		if c.Workflow(n) == nil {
			return nil, fmt.Errorf("unknown workflow %q; known workflows: %s", n, strings.Join(c.IDs(), ", "))
		}
		want[n] = true
	}
	sel := &Selection{Absent: make(map[string]string), OptionalOf: make(map[string]string)}
	for _, w := range c.Workflows {
		if w.Available != nil && w.Available() != nil {
			reason := fmt.Sprintf("workflow %q, which is unavailable here: %v", w.ID, w.Available())
			for _, t := range w.Tools {
				sel.Absent[t.Name] = fmt.Sprintf("tool %s belongs to %s", t.Name, reason)
			}
			continue
		}
		optional := !w.AlwaysOn && (len(want) > 0 || w.OptIn) && !want[w.ID]
		if !optional {
			sel.Enabled = append(sel.Enabled, w)
		}
		for _, t := range w.Tools {
			if t.Available != nil {
				if err := t.Available(); err != nil {
					sel.Absent[t.Name] = fmt.Sprintf("tool %s is unavailable here: %v", t.Name, err)
					continue
				}
			}
			if !optional {
				sel.Tools = append(sel.Tools, t)
				continue
			}
			sel.Absent[t.Name] = fmt.Sprintf("tool %s belongs to workflow %q, which is not enabled; enable it with `workflows:` in .triage/config.yaml, TRIAGE_WORKFLOWS, or a profile naming it (session_set_defaults workflows, then session_use_profile)", t.Name, w.ID)
			sel.Optional = append(sel.Optional, t)
			sel.OptionalOf[t.Name] = w.ID
		}
	}
	return sel, nil
}

// IsEnabled reports whether the workflow with the given id is enabled.
func (s *Selection) IsEnabled(id string) bool {
	return slices.ContainsFunc(s.Enabled, func(w *Workflow) bool { return w.ID == id })
}

// Workflow returns the workflow with the given id, or nil.
func (c *Catalog) Workflow(id string) *Workflow {
	for _, w := range c.Workflows {
		if w.ID == id {
			return w
		}
	}
	return nil
}

// IDs lists the workflow ids in order.
func (c *Catalog) IDs() []string {
	ids := make([]string, len(c.Workflows))
	for i, w := range c.Workflows {
		ids[i] = w.ID
	}
	return ids
}

// Validate checks that tool names are unique and non-empty.
func (c *Catalog) Validate() error {
	var seen []string
	for _, w := range c.Workflows {
		for _, t := range w.Tools {
			if t.Name == "" || slices.Contains(seen, t.Name) {
				return fmt.Errorf("catalog: tool name %q empty or duplicated (workflow %s)", t.Name, w.ID)
			}
			seen = append(seen, t.Name)
		}
	}
	return nil
}

// SelectAll enables every workflow, available here or not.
func (c *Catalog) SelectAll() *Selection {
	sel := &Selection{Absent: map[string]string{}, OptionalOf: map[string]string{}, Enabled: c.Workflows}
	for _, w := range c.Workflows {
		sel.Tools = append(sel.Tools, w.Tools...)
	}
	return sel
}
