package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/axe"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/xcode"
)

type actParams struct {
	apple.SimulatorArgs
	Action     string   `json:"action" jsonschema:"tap, long_press, swipe, type, key, button or gesture"`
	X          *float64 `json:"x,omitempty" jsonschema:"point in screen points: tap, long_press, swipe's start"`
	Y          *float64 `json:"y,omitempty" jsonschema:"with x"`
	ToX        *float64 `json:"to_x,omitempty" jsonschema:"swipe's end"`
	ToY        *float64 `json:"to_y,omitempty" jsonschema:"with to_x"`
	Label      string   `json:"label,omitempty" jsonschema:"tap or long_press the element with this accessibility label"`
	ID         string   `json:"id,omitempty" jsonschema:"tap or long_press the element with this accessibility identifier"`
	Text       string   `json:"text,omitempty" jsonschema:"type: the text (US keyboard characters)"`
	Key        *int     `json:"key,omitempty" jsonschema:"key: HID keycode (40 Return, 42 Backspace, 43 Tab, 44 Space)"`
	Button     string   `json:"button,omitempty" jsonschema:"button: home, lock, side-button, siri or apple-pay"`
	Gesture    string   `json:"gesture,omitempty" jsonschema:"gesture: scroll-up|down|left|right, swipe-from-left|right|top|bottom-edge"`
	DurationS  float64  `json:"duration_s,omitempty" jsonschema:"long_press hold (default 1), swipe/gesture length, key/button hold"`
	Screenshot bool     `json:"screenshot,omitempty" jsonschema:"attach a screenshot taken after the action"`
}

// ActOutput is the result of ui_act.
type ActOutput struct {
	Verdict    string      `json:"verdict" jsonschema:"the verdict line"`
	Simulator  string      `json:"simulator" jsonschema:"the simulator's UDID"`
	Argv       []string    `json:"argv" jsonschema:"the axe command line run"`
	Element    *Element    `json:"element,omitempty" jsonschema:"the element a label or id designated"`
	Screenshot *Screenshot `json:"screenshot,omitempty" jsonschema:"the screenshot taken after the action"`
}

// Screenshot locates a screenshot taken after an action.
type Screenshot struct {
	Path  string `json:"path" jsonschema:"the PNG file"`
	Bytes int64  `json:"bytes" jsonschema:"its size"`
}

// action is the domain action the arguments describe, the target (label
// or id) not yet resolved to a point.
func (in actParams) action() (axe.Action, error) {
	a := axe.Action{Kind: in.Action, Label: in.Label, ID: in.ID, Text: in.Text, Key: in.Key, Button: in.Button, Gesture: in.Gesture, Duration: in.DurationS}
	var err error
	if a.At, err = point("x", "y", in.X, in.Y); err != nil {
		return a, err
	}
	a.To, err = point("to_x", "to_y", in.ToX, in.ToY)
	return a, err
}

func point(xn, yn string, x, y *float64) (*axe.Point, error) {
	switch {
	case x == nil && y == nil:
		return nil, nil
	case x == nil || y == nil:
		return nil, fault.Usagef("%s and %s go together: give both", xn, yn)
	}
	return &axe.Point{X: *x, Y: *y}, nil
}

// byTarget says whether a names its element by label or id, and by which.
func byTarget(a axe.Action) (by, value string, ok bool) {
	if a.At != nil || (a.Kind != "tap" && a.Kind != "long_press") {
		return "", "", false
	}
	if a.ID != "" {
		return "id", a.ID, true
	}
	return "label", a.Label, a.Label != ""
}

func (h *handler) act(ctx context.Context, c *catalog.Call, in actParams) (catalog.Result[ActOutput], error) {
	var zero catalog.Result[ActOutput]
	a, err := in.action()
	if err != nil {
		return zero, err
	}
	if _, _, named := byTarget(a); !named {
		if err := a.Check(); err != nil {
			return zero, err
		}
	}
	d, err := in.Resolve(ctx)
	if err != nil {
		return zero, err
	}
	out := ActOutput{Simulator: d.UDID}
	if a, out.Element, err = resolveTarget(ctx, d, a); err != nil {
		return zero, err
	}
	if out.Argv, err = a.Argv(d.UDID); err != nil {
		return zero, err
	}
	if _, err := axe.Run(ctx, out.Argv); err != nil {
		return zero, err
	}
	out.Verdict = fmt.Sprintf("DONE: %s on %s", a.Describe(), d.UDID)
	res := catalog.Result[ActOutput]{Output: out}
	var b strings.Builder
	b.WriteString(out.Verdict + "\n")
	if out.Element != nil {
		fmt.Fprintf(&b, "element: %s %q id=%s at (%g, %g %gx%g)\n", out.Element.Type, out.Element.Label, out.Element.ID, out.Element.Frame[0], out.Element.Frame[1], out.Element.Frame[2], out.Element.Frame[3])
	}
	if in.Screenshot {
		shot, img, note, err := screenshot(ctx, d)
		if err != nil {
			return zero, fmt.Errorf("the %s was done, but the screenshot after it failed: %w", a.Kind, err)
		}
		res.Output.Screenshot, res.Images = &shot, img
		fmt.Fprintf(&b, "screenshot: %s (%d bytes)%s\n", shot.Path, shot.Bytes, note)
	}
	res.Text = b.String()
	return res, nil
}

// resolveTarget finds the element a label or id names on the screen (a
// clear error with the nearest labels when there is none); a long press
// is then aimed at its centre, a tap left to AXe's own targeting.
func resolveTarget(ctx context.Context, d xcode.Device, a axe.Action) (axe.Action, *Element, error) {
	by, value, named := byTarget(a)
	if !named {
		return a, nil, nil
	}
	roots, err := readScreen(ctx, d)
	if err != nil {
		return a, nil, err
	}
	e, err := axe.Find(roots, by, value)
	if err != nil {
		return a, nil, err
	}
	if a.Kind == "long_press" {
		c := e.Frame.Center()
		a.At = &c
	}
	el := ElementsOf([]axe.Element{{Type: e.Type, Label: e.Label, ID: e.ID, Value: e.Value, Frame: e.Frame, Enabled: e.Enabled}})[0]
	return a, &el, nil
}

// screenshot takes a PNG after an action, stored as sim_screenshot's are,
// and attaches it when it fits an answer.
func screenshot(ctx context.Context, d xcode.Device) (Screenshot, []catalog.Image, string, error) {
	dir := filepath.Join(os.TempDir(), "triage-screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Screenshot{}, nil, "", fmt.Errorf("creating the screenshot directory: %w", err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s.png", d.UDID, time.Now().Format("20060102-150405.000")))
	if _, err := axe.Run(ctx, axe.ScreenshotArgv(d.UDID, path)); err != nil {
		return Screenshot{}, nil, "", err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return Screenshot{}, nil, "", fmt.Errorf("axe screenshot wrote no file: %w", err)
	}
	shot := Screenshot{Path: path, Bytes: fi.Size()}
	if fi.Size() > catalog.MaxImageBytes {
		return shot, nil, fmt.Sprintf("; not attached: over the %d-byte limit (sim_screenshot scales one down)", catalog.MaxImageBytes), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Screenshot{}, nil, "", fmt.Errorf("reading the screenshot: %w", err)
	}
	return shot, []catalog.Image{{Data: data, MIMEType: "image/png"}}, "", nil
}
