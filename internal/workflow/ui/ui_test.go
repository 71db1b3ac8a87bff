package ui_test

import (
	"bytes"
	"image/png"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/axe"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil/fakeaxe"
	"github.com/triage-dev/triage/internal/testutil/fakexcode"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/session"
	"github.com/triage-dev/triage/internal/workflow/simulator"
	"github.com/triage-dev/triage/internal/workflow/ui"
)

// The fake axe answers from AXe's recordings (internal/testutil/fakeaxe):
// describe-ui is AxePlayground's tap-test screen in the recorded schema.

const sim = "4C000000-0000-4000-8000-000000000180"

type env struct {
	c    *mcptest.Client
	fake *fakeaxe.Fake
}

func here() error { return nil }

// connect serves the ui workflow, enabled (it is opt-in), with the
// simulator workflow beside it, both available through injection.
func connect(t *testing.T, o ui.Options) *mcptest.Client {
	t.Helper()
	return mcptest.ConnectCatalogConfig(t, &config.Config{Workflows: []string{"ui", "simulator"}}, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{session.Workflow(svc), simulator.WorkflowWith(svc, apple.Options{Available: here}), ui.WorkflowWith(svc, o)}
	})
}

func newEnv(t *testing.T, screen []byte, rules ...fakexcode.Rule) *env {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	e := &env{fake: fakeaxe.InstallScreen(t, screen, rules...)}
	e.c = connect(t, ui.Options{Available: here})
	return e
}

// axeCalls are the axe command lines run, each joined by spaces.
func (e *env) axeCalls(t *testing.T) []string {
	var out []string
	for _, c := range e.fake.Calls(t) {
		if c.Tool == "axe" {
			out = append(out, strings.Join(c.Argv, " "))
		}
	}
	return out
}

func TestDescribe(t *testing.T) {
	e := newEnv(t, fakeaxe.DescribeUI())
	r := e.c.Call("ui_describe", map[string]any{"simulator_id": sim})
	if r.IsError || r.FirstLine() != "SCREEN of "+sim+": 6 elements" {
		t.Fatalf("result:\n%s", r.Text)
	}
	for _, want := range []string{
		`Application "AxePlayground" (0,0 402x874)`,
		`  StaticText "Tap Count: 0" id=tap-count value="0" (143,174 116x22)`,
		`  Other id=tap-test-area (0,116 402x724)`,
	} {
		if !strings.Contains(r.Text, want+"\n") {
			t.Errorf("text lacks %q:\n%s", want, r.Text)
		}
	}
	var out ui.DescribeOutput
	r.Decode(t, &out)
	if out.Total != 6 || len(out.Elements) != 6 || !reflect.DeepEqual(out.Elements[2], ui.Element{Depth: 1, Type: "StaticText", Label: "Tap Count: 0", ID: "tap-count", Value: "0", Frame: []float64{143, 174, 116, 22}, Enabled: true}) {
		t.Fatalf("output = %+v", out)
	}
	if got := e.axeCalls(t); !slices.Equal(got, []string{"describe-ui --udid " + sim}) {
		t.Fatalf("axe calls = %q", got)
	}
}

// A busy screen (the recorded shape repeated) is bounded, saying so.
func TestDescribeIsBounded(t *testing.T) {
	e := newEnv(t, fakeaxe.Screen(100))
	r := e.c.Call("ui_describe", map[string]any{"simulator_id": sim})
	if r.IsError || r.FirstLine() != "SCREEN of "+sim+": 501 elements (200 shown)" {
		t.Fatalf("result:\n%.500s", r.Text)
	}
	if !strings.Contains(r.Text, "… 301 more elements not shown") || len(r.Text) > 16<<10 {
		t.Fatalf("text (%d bytes) does not say what was left out:\n%.300s", len(r.Text), r.Text[len(r.Text)-300:])
	}
	var out ui.DescribeOutput
	r.Decode(t, &out)
	if out.Total != 501 || len(out.Elements) != 200 {
		t.Fatalf("total %d, elements %d", out.Total, len(out.Elements))
	}
}

func act(e *env, args map[string]any) mcptest.Result {
	args["simulator_id"] = sim
	return e.c.Call("ui_act", args)
}

func TestTapByCoordinates(t *testing.T) {
	e := newEnv(t, fakeaxe.DescribeUI())
	r := act(e, map[string]any{"action": "tap", "x": 100, "y": 200.5})
	if r.IsError || r.FirstLine() != "DONE: tap at (100, 200.5) on "+sim {
		t.Fatalf("result:\n%s", r.Text)
	}
	if got := e.axeCalls(t); !slices.Equal(got, []string{"tap -x 100 -y 200.5 --udid " + sim}) {
		t.Fatalf("axe calls = %q", got)
	}
}

// A label or id is looked up on the screen first, then AXe taps it.
func TestTapByLabelAndID(t *testing.T) {
	e := newEnv(t, fakeaxe.DescribeUI())
	r := act(e, map[string]any{"action": "tap", "label": "Tap Count: 0"})
	if r.IsError || r.FirstLine() != `DONE: tap on "Tap Count: 0" on `+sim {
		t.Fatalf("result:\n%s", r.Text)
	}
	var out ui.ActOutput
	r.Decode(t, &out)
	if out.Element == nil || out.Element.ID != "tap-count" {
		t.Fatalf("element = %+v", out.Element)
	}
	r = act(e, map[string]any{"action": "tap", "id": "tap-test-area"})
	if r.IsError || r.FirstLine() != `DONE: tap on id "tap-test-area" on `+sim {
		t.Fatalf("result:\n%s", r.Text)
	}
	want := []string{"describe-ui --udid " + sim, "tap --label Tap Count: 0 --udid " + sim, "describe-ui --udid " + sim, "tap --id tap-test-area --udid " + sim}
	if got := e.axeCalls(t); !slices.Equal(got, want) {
		t.Fatalf("axe calls = %q\nwant %q", got, want)
	}
}

// A long press on a label presses the element's centre.
func TestLongPressByLabel(t *testing.T) {
	e := newEnv(t, fakeaxe.DescribeUI())
	r := act(e, map[string]any{"action": "long_press", "label": "Tap Test", "duration_s": 2})
	if r.IsError || r.FirstLine() != `DONE: long_press on "Tap Test" on `+sim {
		t.Fatalf("result:\n%s", r.Text)
	}
	if got := e.axeCalls(t); got[len(got)-1] != "touch -x 201 -y 83 --down --up --delay 2 --udid "+sim {
		t.Fatalf("axe calls = %q", got)
	}
}

func TestOtherActions(t *testing.T) {
	e := newEnv(t, fakeaxe.DescribeUI())
	for _, tt := range []struct {
		args    map[string]any
		verdict string
		argv    string
	}{
		{map[string]any{"action": "swipe", "x": 200, "y": 700, "to_x": 200, "to_y": 100, "duration_s": 0.5}, "swipe from (200, 700) to (200, 100)", "swipe --start-x 200 --start-y 700 --end-x 200 --end-y 100 --duration 0.5"},
		{map[string]any{"action": "type", "text": "hello -v"}, "type 8 characters", ""},
		{map[string]any{"action": "key", "key": 40}, "key 40", "key 40"},
		{map[string]any{"action": "button", "button": "home"}, "button home", "button home"},
		{map[string]any{"action": "gesture", "gesture": "scroll-down"}, "gesture scroll-down", "gesture scroll-down"},
	} {
		r := act(e, tt.args)
		if r.IsError || r.FirstLine() != "DONE: "+tt.verdict+" on "+sim {
			t.Errorf("%v: %s", tt.args, r.Text)
		}
		got := e.axeCalls(t)
		want := tt.argv + " --udid " + sim
		if tt.args["action"] == "type" {
			want = "type --udid " + sim + " -- hello -v"
		}
		if got[len(got)-1] != want {
			t.Errorf("%v: axe %q, want %q", tt.args, got[len(got)-1], want)
		}
	}
}

// An unknown label is refused before anything is tapped, with the nearest
// labels on the screen.
func TestUnknownElement(t *testing.T) {
	e := newEnv(t, fakeaxe.DescribeUI())
	r := act(e, map[string]any{"action": "tap", "label": "Tap Tset"})
	if !r.IsError || r.Outcome != "usage_error" || r.Text != `no element labelled "Tap Tset": nearest: Tap Test, Tap Count: 0` {
		t.Fatalf("result (%s):\n%s", r.Outcome, r.Text)
	}
	r = act(e, map[string]any{"action": "long_press", "id": "tap-aera"})
	if !r.IsError || !strings.HasPrefix(r.Text, `no element with id "tap-aera": nearest: `) || !strings.Contains(r.Text, "tap-test-area") {
		t.Fatalf("result (%s):\n%s", r.Outcome, r.Text)
	}
	if got := e.axeCalls(t); !slices.Equal(got, []string{"describe-ui --udid " + sim, "describe-ui --udid " + sim}) {
		t.Fatalf("axe calls = %q: something was acted on", got)
	}
}

// AXe's own refusal (the recorded validation error, exit 64) is quoted whole.
func TestAxeFailureIsQuoted(t *testing.T) {
	e := newEnv(t, fakeaxe.DescribeUI(), fakeaxe.Replay(t, "validation-tap-coordinates", "tap"))
	r := act(e, map[string]any{"action": "tap", "x": 1, "y": 2})
	stderr := strings.TrimSpace(fakeaxe.Recorded(t, "validation-tap-coordinates", "stderr.txt"))
	if !r.IsError || r.Outcome != "error" || r.Text != "axe tap failed (exit status 64):\n"+stderr {
		t.Fatalf("result (%s):\n%s\nwant the recorded stderr:\n%s", r.Outcome, r.Text, stderr)
	}
}

func TestBadArguments(t *testing.T) {
	e := newEnv(t, fakeaxe.DescribeUI())
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "tap", "x": 1}, "x and y go together"},
		{map[string]any{"action": "pinch"}, `action "pinch": use one of tap, long_press, swipe, type, key, button, gesture`},
		{map[string]any{"action": "button", "button": "power"}, `button "power": use one of apple-pay, home`},
	} {
		r := act(e, tt.args)
		if !r.IsError || r.Outcome != "usage_error" || !strings.Contains(r.Text, tt.want) {
			t.Errorf("%v: (%s) %s", tt.args, r.Outcome, r.Text)
		}
	}
	if got := e.axeCalls(t); len(got) != 0 {
		t.Fatalf("axe ran: %q", got)
	}
}

// Without a simulator the tools say what the simulator tools say.
func TestNoSimulator(t *testing.T) {
	e := newEnv(t, fakeaxe.DescribeUI())
	want := e.c.Call("sim_screenshot", map[string]any{})
	if !want.IsError || want.Outcome != "usage_error" || !strings.Contains(want.Text, "simulator_id") {
		t.Fatalf("sim_screenshot: %s", want.Text)
	}
	for tool, args := range map[string]map[string]any{"ui_describe": {}, "ui_act": {"action": "tap", "x": 1, "y": 1}} {
		r := e.c.Call(tool, args)
		if r.Outcome != want.Outcome || strings.ReplaceAll(r.Text, tool, "sim_screenshot") != want.Text {
			t.Errorf("%s: (%s) %s\nwant as sim_screenshot: %s", tool, r.Outcome, r.Text, want.Text)
		}
	}
}

// The session's simulator is used; an explicit one wins.
func TestSessionSimulator(t *testing.T) {
	e := newEnv(t, fakeaxe.DescribeUI())
	if r := e.c.Call("session_set_defaults", map[string]any{"simulator_id": sim}); r.IsError {
		t.Fatal(r.Text)
	}
	other := "4C000000-0000-4000-8000-000000000999"
	e.c.Call("ui_act", map[string]any{"action": "key", "key": 44})
	e.c.Call("ui_act", map[string]any{"action": "key", "key": 44, "simulator_id": other})
	want := []string{"key 44 --udid " + sim, "key 44 --udid " + other}
	if got := e.axeCalls(t); !slices.Equal(got, want) {
		t.Fatalf("axe calls = %q, want %q", got, want)
	}
}

func TestScreenshotAfterAction(t *testing.T) {
	e := newEnv(t, fakeaxe.DescribeUI())
	r := act(e, map[string]any{"action": "button", "button": "home", "screenshot": true})
	if r.IsError || len(r.Images) != 1 || r.Images[0].MIMEType != "image/png" {
		t.Fatalf("result (%d images):\n%s", len(r.Images), r.Text)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(r.Images[0].Data))
	if err != nil || cfg.Width != 30 || cfg.Height != 60 {
		t.Fatalf("image: %v %+v", err, cfg)
	}
	var out ui.ActOutput
	r.Decode(t, &out)
	if out.Screenshot == nil || !strings.Contains(r.Text, "screenshot: "+out.Screenshot.Path) {
		t.Fatalf("screenshot = %+v\n%s", out.Screenshot, r.Text)
	}
	if _, err := os.Stat(out.Screenshot.Path); err != nil {
		t.Fatal(err)
	}
	got := e.axeCalls(t)
	if want := "screenshot --udid " + sim + " --output " + out.Screenshot.Path; len(got) != 2 || got[1] != want {
		t.Fatalf("axe calls = %q, want the button then %q", got, want)
	}
}

// Without axe on PATH the tools are hidden, and a call says why.
func TestAxeMissingHidesTheTools(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("PATH", t.TempDir())
	c := connect(t, ui.Options{Available: axe.OnPath})
	if tools := c.Tools(); slices.Contains(tools, "ui_act") || slices.Contains(tools, "ui_describe") {
		t.Fatalf("tools = %q", tools)
	}
	r := c.Call("ui_describe", map[string]any{"simulator_id": sim})
	if !r.IsError || !strings.Contains(r.Text, `workflow "ui", which is unavailable here: axe not found on PATH`) {
		t.Fatalf("result:\n%s", r.Text)
	}
}

// axe gone after the start (or the workflow forced on): a clear error.
func TestAxeMissingAtCallTime(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("PATH", t.TempDir())
	c := connect(t, ui.Options{Available: here})
	r := c.Call("ui_act", map[string]any{"simulator_id": sim, "action": "tap", "x": 1, "y": 1})
	if !r.IsError || r.Outcome != "error" || !strings.HasPrefix(r.Text, "axe not found on PATH") {
		t.Fatalf("result (%s):\n%s", r.Outcome, r.Text)
	}
}

// The workflow is opt-in: a default session's tools/list does not pay for
// it even where AXe is installed; a call says how to enable it.
func TestOptIn(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	fakeaxe.Install(t)
	c := mcptest.ConnectCatalogConfig(t, &config.Config{}, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{session.Workflow(svc), ui.WorkflowWith(svc, ui.Options{Available: axe.OnPath})}
	})
	if tools := c.Tools(); slices.Contains(tools, "ui_act") || slices.Contains(tools, "ui_describe") {
		t.Fatalf("default tools = %q", tools)
	}
	r := c.Call("ui_describe", map[string]any{"simulator_id": sim})
	if !r.IsError || !strings.Contains(r.Text, `belongs to workflow "ui", which is not enabled`) {
		t.Fatalf("result:\n%s", r.Text)
	}
}
