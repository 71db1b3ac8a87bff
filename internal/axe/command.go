package axe

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/fault"
)

// Actions are the kinds of Action, in the order documented.
var Actions = []string{"tap", "long_press", "swipe", "type", "key", "button", "gesture"}

// Buttons and Gestures are the values AXe accepts (its --help).
var (
	Buttons  = []string{"apple-pay", "home", "lock", "side-button", "siri"}
	Gestures = []string{"scroll-up", "scroll-down", "scroll-left", "scroll-right",
		"swipe-from-left-edge", "swipe-from-right-edge", "swipe-from-top-edge", "swipe-from-bottom-edge"}
)

// DefaultLongPress is how long a long press holds when no duration is given.
const DefaultLongPress = 1.0

// maxText bounds the text one type action sends.
const maxText = 4 << 10

// Point is a screen position in points.
type Point struct{ X, Y float64 }

// Action is one UI step. Which fields count depends on Kind: tap takes At,
// Label or ID; long_press takes At (a label or id is resolved to a point
// by the caller); swipe At and To; type Text; key Key; button Button;
// gesture Gesture. Duration (seconds) is a long press's hold, a swipe's or
// gesture's length, a key's or button's hold; 0 is AXe's default.
type Action struct {
	Kind     string
	At, To   *Point
	Label    string
	ID       string
	Text     string
	Key      *int
	Button   string
	Gesture  string
	Duration float64
}

// DescribeArgv reads the whole accessibility tree of a simulator.
func DescribeArgv(udid string) []string {
	return []string{Tool, "describe-ui", "--udid", udid}
}

// ScreenshotArgv writes a PNG of the simulator's screen to path.
func ScreenshotArgv(udid, path string) []string {
	return []string{Tool, "screenshot", "--udid", udid, "--output", path}
}

// Argv is the command line of a, checked first.
func (a Action) Argv(udid string) ([]string, error) {
	if err := a.Check(); err != nil {
		return nil, err
	}
	var args []string
	switch a.Kind {
	case "tap":
		args = a.tapArgs()
	case "long_press":
		hold := a.Duration
		if hold == 0 {
			hold = DefaultLongPress
		}
		args = []string{"touch", "-x", num(a.At.X), "-y", num(a.At.Y), "--down", "--up", "--delay", num(hold)}
	case "swipe":
		args = append([]string{"swipe", "--start-x", num(a.At.X), "--start-y", num(a.At.Y), "--end-x", num(a.To.X), "--end-y", num(a.To.Y)}, a.durationArgs()...)
	case "type":
		// "--" ends the options: a text starting with '-' is typed, not parsed.
		return []string{Tool, "type", "--udid", udid, "--", a.Text}, nil
	case "key":
		args = append([]string{"key", strconv.Itoa(*a.Key)}, a.durationArgs()...)
	case "button":
		args = append([]string{"button", a.Button}, a.durationArgs()...)
	case "gesture":
		args = append([]string{"gesture", a.Gesture}, a.durationArgs()...)
	}
	return append(append([]string{Tool}, args...), "--udid", udid), nil
}

func (a Action) tapArgs() []string {
	switch {
	case a.At != nil:
		return []string{"tap", "-x", num(a.At.X), "-y", num(a.At.Y)}
	case a.ID != "":
		return []string{"tap", "--id", a.ID}
	}
	return []string{"tap", "--label", a.Label}
}

func (a Action) durationArgs() []string {
	if a.Duration == 0 {
		return nil
	}
	return []string{"--duration", num(a.Duration)}
}

// num formats a number as AXe parses it: no exponent, no trailing zeros.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Check refuses an action AXe would refuse, with the fix in the message.
// Numbers must be non-negative: AXe takes "-1" for an option.
func (a Action) Check() error {
	if !slices.Contains(Actions, a.Kind) {
		return fault.Usagef("action %q: use one of %s", a.Kind, strings.Join(Actions, ", "))
	}
	if a.Duration < 0 || a.Duration > 60 {
		return fault.Usagef("duration_s %v: use 0 to 60 seconds", a.Duration)
	}
	for _, p := range []*Point{a.At, a.To} {
		if p != nil && (p.X < 0 || p.Y < 0) {
			return fault.Usagef("point (%v, %v): coordinates are non-negative screen points", p.X, p.Y)
		}
	}
	return a.checkKind()
}

func (a Action) checkKind() error {
	switch a.Kind {
	case "tap":
		if a.At == nil && a.Label == "" && a.ID == "" {
			return fault.Usagef("tap needs x and y, a label or an id")
		}
	case "long_press":
		if a.At == nil {
			return fault.Usagef("long_press needs x and y, a label or an id")
		}
	case "swipe":
		if a.At == nil || a.To == nil {
			return fault.Usagef("swipe needs x, y (start) and to_x, to_y (end)")
		}
	case "type":
		if a.Text == "" || len(a.Text) > maxText {
			return fault.Usagef("type needs text of 1 to %d bytes", maxText)
		}
	case "key":
		if a.Key == nil || *a.Key < 0 || *a.Key > 255 {
			return fault.Usagef("key needs a HID keycode from 0 to 255 (40 Return, 42 Backspace, 43 Tab, 44 Space)")
		}
	case "button":
		return oneOf("button", a.Button, Buttons)
	case "gesture":
		return oneOf("gesture", a.Gesture, Gestures)
	}
	return nil
}

func oneOf(name, v string, values []string) error {
	if !slices.Contains(values, v) {
		return fault.Usagef("%s %q: use one of %s", name, v, strings.Join(values, ", "))
	}
	return nil
}

// Describe says what a does, for the verdict line: `tap at (10, 20)`.
func (a Action) Describe() string {
	switch {
	case a.Kind == "type":
		return fmt.Sprintf("type %d characters", len([]rune(a.Text)))
	case a.Kind == "key":
		return fmt.Sprintf("key %d", *a.Key)
	case a.Kind == "button":
		return "button " + a.Button
	case a.Kind == "gesture":
		return "gesture " + a.Gesture
	case a.Kind == "swipe":
		return fmt.Sprintf("swipe from (%s, %s) to (%s, %s)", num(a.At.X), num(a.At.Y), num(a.To.X), num(a.To.Y))
	case a.ID != "":
		return fmt.Sprintf("%s on id %q", a.Kind, a.ID)
	case a.Label != "":
		return fmt.Sprintf("%s on %q", a.Kind, a.Label)
	}
	return fmt.Sprintf("%s at (%s, %s)", a.Kind, num(a.At.X), num(a.At.Y))
}
