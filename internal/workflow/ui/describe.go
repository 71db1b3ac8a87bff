package ui

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/axe"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/xcode"
)

type describeParams struct {
	apple.SimulatorArgs
}

// Element is one accessibility element of a screen, in document order.
type Element struct {
	Depth   int       `json:"depth" jsonschema:"nesting level; 0 is the application"`
	Type    string    `json:"type,omitempty" jsonschema:"Button, StaticText, TextField…"`
	Label   string    `json:"label,omitempty" jsonschema:"accessibility label (ui_act label)"`
	ID      string    `json:"id,omitempty" jsonschema:"accessibility identifier (ui_act id)"`
	Value   string    `json:"value,omitempty" jsonschema:"accessibility value"`
	Frame   []float64 `json:"frame" jsonschema:"x, y, width, height in points"`
	Enabled bool      `json:"enabled"`
}

// DescribeOutput is the result of ui_describe.
type DescribeOutput struct {
	Verdict   string    `json:"verdict" jsonschema:"the verdict line"`
	Simulator string    `json:"simulator" jsonschema:"the simulator's UDID"`
	Total     int       `json:"total" jsonschema:"elements on the screen, anonymous containers left out"`
	Elements  []Element `json:"elements" jsonschema:"the elements shown (at most 200, 12 levels, strings cut at 120 bytes)"`
}

// ElementsOf flattens a tree into Elements, depth first.
func ElementsOf(roots []axe.Element) []Element {
	var out []Element
	var walk func([]axe.Element, int)
	walk = func(es []axe.Element, depth int) {
		for _, e := range es {
			f := e.Frame
			out = append(out, Element{Depth: depth, Type: e.Type, Label: e.Label, ID: e.ID, Value: e.Value, Frame: []float64{f.X, f.Y, f.Width, f.Height}, Enabled: e.Enabled})
			walk(e.Children, depth+1)
		}
	}
	walk(roots, 0)
	return out
}

func (h *handler) describe(ctx context.Context, c *catalog.Call, in describeParams) (catalog.Result[DescribeOutput], error) {
	var zero catalog.Result[DescribeOutput]
	d, err := in.Resolve(ctx)
	if err != nil {
		return zero, err
	}
	roots, err := readScreen(ctx, d)
	if err != nil {
		return zero, err
	}
	kept, cut := axe.Bound(roots, axe.DefaultLimits)
	out := DescribeOutput{Simulator: d.UDID, Total: axe.Count(roots), Elements: ElementsOf(kept)}
	out.Verdict = fmt.Sprintf("SCREEN of %s: %d elements", d.UDID, out.Total)
	if cut > 0 {
		out.Verdict += fmt.Sprintf(" (%d shown)", len(out.Elements))
	}
	var b strings.Builder
	b.WriteString(out.Verdict + "\n")
	writeTree(&b, kept, 0)
	if cut > 0 {
		fmt.Fprintf(&b, "… %d more elements not shown; act on them by label or id all the same\n", cut)
	}
	return catalog.Result[DescribeOutput]{Text: b.String(), Output: out}, nil
}

func writeTree(b *strings.Builder, es []axe.Element, depth int) {
	for _, e := range es {
		fmt.Fprintf(b, "%s%s\n", strings.Repeat("  ", depth), e)
		writeTree(b, e.Children, depth+1)
	}
}

// readScreen runs describe-ui and reads the whole compact tree.
func readScreen(ctx context.Context, d xcode.Device) ([]axe.Element, error) {
	raw, err := axe.Run(ctx, axe.DescribeArgv(d.UDID))
	if err != nil {
		return nil, err
	}
	return axe.Parse(raw)
}
