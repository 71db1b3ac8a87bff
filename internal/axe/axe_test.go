package axe_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/axe"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/testutil/fakeaxe"
)

func screen(t *testing.T) []axe.Element {
	t.Helper()
	roots, err := axe.Parse(fakeaxe.DescribeUI())
	if err != nil {
		t.Fatal(err)
	}
	return roots
}

// The anonymous groups give way to what they hold: the application, then
// its labelled or identified elements.
func TestParseCompactsAnonymousContainers(t *testing.T) {
	roots := screen(t)
	if len(roots) != 1 || roots[0].Label != "AxePlayground" {
		t.Fatalf("roots = %+v", roots)
	}
	var got []string
	for _, e := range roots[0].Children {
		got = append(got, e.String())
	}
	want := []string{
		`StaticText "Detects taps sent by CLI commands" id=tap-test-description (90,150 222x18)`,
		`StaticText "Tap Count: 0" id=tap-count value="0" (143,174 116x22)`,
		`Other id=tap-test-area (0,116 402x724)`,
		`StaticText "Tap Test" id=tap-test-title (164,72 74x22)`,
		`Other id=tap-test-screen (0,116 402x724)`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("children:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestBound(t *testing.T) {
	roots := screen(t)
	kept, cut := axe.Bound(roots, axe.Limits{Elements: 3, Depth: 5, String: 10})
	if axe.Count(kept) != 3 || cut != 3 {
		t.Fatalf("kept %d, cut %d; want 3 and 3", axe.Count(kept), cut)
	}
	if l := kept[0].Children[0].Label; l != "Detects ta…" {
		t.Fatalf("label = %q, want it cut at 10 bytes", l)
	}
	kept, _ = axe.Bound(roots, axe.Limits{Elements: 100, Depth: 0, String: 10})
	if axe.Count(kept) != 1 {
		t.Fatalf("depth 0 kept %d elements, want the root only", axe.Count(kept))
	}
}

func TestParseRefusesWhatIsNotATree(t *testing.T) {
	if _, err := axe.Parse([]byte(`{"AXLabel": "x"}`)); err == nil || !strings.Contains(err.Error(), "describe-ui's JSON") {
		t.Fatalf("err = %v", err)
	}
}

func TestFind(t *testing.T) {
	roots := screen(t)
	e, err := axe.Find(roots, "label", "Tap Count: 0")
	if err != nil || e.ID != "tap-count" || e.Frame.Center() != (axe.Point{X: 201, Y: 185}) {
		t.Fatalf("Find = %+v, %v", e, err)
	}
	if e, err = axe.Find(roots, "id", "tap-test-area"); err != nil || e.Frame.Width != 402 {
		t.Fatalf("Find id = %+v, %v", e, err)
	}
	_, err = axe.Find(roots, "label", "Tap Tset")
	if !fault.Is(err, fault.KindNotFound) || err.Error() != `no element labelled "Tap Tset": nearest: Tap Test, Tap Count: 0` {
		t.Fatalf("err = %v", err)
	}
	_, err = axe.Find(roots, "id", "tap-cont")
	if err == nil || !strings.HasPrefix(err.Error(), `no element with id "tap-cont": nearest: tap-count,`) {
		t.Fatalf("err = %v", err)
	}
	_, err = axe.Find(roots, "label", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz")
	if err == nil || !strings.Contains(err.Error(), "none is near; on screen: AxePlayground, Detects taps") {
		t.Fatalf("err = %v", err)
	}
}

func TestNearest(t *testing.T) {
	got := axe.Nearest("Sumbit", []string{"Cancel", "Subtitle", "Submit", "Settings"}, 5)
	if !slices.Equal(got, []string{"Submit", "Subtitle"}) {
		t.Fatalf("Nearest = %q", got)
	}
}

func TestArgv(t *testing.T) {
	key := 40
	for _, tt := range []struct {
		a    axe.Action
		want string
	}{
		{axe.Action{Kind: "tap", At: &axe.Point{X: 10.5, Y: 20}}, "axe tap -x 10.5 -y 20 --udid U"},
		{axe.Action{Kind: "tap", Label: "Tap Test"}, "axe tap --label Tap Test --udid U"},
		{axe.Action{Kind: "tap", ID: "tap-count", Label: "ignored"}, "axe tap --id tap-count --udid U"},
		{axe.Action{Kind: "long_press", At: &axe.Point{X: 1, Y: 2}}, "axe touch -x 1 -y 2 --down --up --delay 1 --udid U"},
		{axe.Action{Kind: "swipe", At: &axe.Point{X: 1, Y: 2}, To: &axe.Point{X: 3, Y: 400}, Duration: 0.5}, "axe swipe --start-x 1 --start-y 2 --end-x 3 --end-y 400 --duration 0.5 --udid U"},
		{axe.Action{Kind: "type", Text: "-rf hello"}, "axe type --udid U -- -rf hello"},
		{axe.Action{Kind: "key", Key: &key}, "axe key 40 --udid U"},
		{axe.Action{Kind: "button", Button: "home", Duration: 2}, "axe button home --duration 2 --udid U"},
		{axe.Action{Kind: "gesture", Gesture: "scroll-up"}, "axe gesture scroll-up --udid U"},
	} {
		argv, err := tt.a.Argv("U")
		if err != nil || strings.Join(argv, " ") != tt.want {
			t.Errorf("%+v: %q, %v; want %s", tt.a, argv, err, tt.want)
		}
	}
}

func TestCheckRefuses(t *testing.T) {
	bad := 256
	for _, tt := range []struct {
		a    axe.Action
		want string
	}{
		{axe.Action{Kind: "pinch"}, `action "pinch": use one of tap, long_press`},
		{axe.Action{Kind: "tap"}, "tap needs x and y, a label or an id"},
		{axe.Action{Kind: "tap", At: &axe.Point{X: -1, Y: 2}}, "coordinates are non-negative"},
		{axe.Action{Kind: "swipe", At: &axe.Point{}}, "swipe needs"},
		{axe.Action{Kind: "key", Key: &bad}, "0 to 255"},
		{axe.Action{Kind: "button", Button: "power"}, `button "power": use one of apple-pay, home, lock, side-button, siri`},
		{axe.Action{Kind: "gesture", Gesture: "zoom"}, "use one of scroll-up"},
		{axe.Action{Kind: "type"}, "type needs text"},
		{axe.Action{Kind: "gesture", Gesture: "scroll-up", Duration: -1}, "duration_s -1"},
	} {
		err := tt.a.Check()
		if !fault.Is(err, fault.KindUsage) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v; want usage error with %q", tt.a, err, tt.want)
		}
	}
}

// A failing axe is quoted whole: the recorded validation error, exit 64.
func TestRunQuotesStderr(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	fakeaxe.Install(t, fakeaxe.Replay(t, "validation-tap-coordinates", "tap"))
	_, err := axe.Run(context.Background(), []string{"axe", "tap", "-x", "1", "-y", "2", "--udid", "U"})
	var ae *axe.Error
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v", err)
	}
	stderr := fakeaxe.Recorded(t, "validation-tap-coordinates", "stderr.txt")
	if want := "axe tap failed (exit status 64):\n" + strings.TrimSpace(stderr); err.Error() != want {
		t.Fatalf("err =\n%s\nwant\n%s", err, want)
	}
	out, err := axe.Run(context.Background(), axe.DescribeArgv("U"))
	if err != nil || string(out) != string(fakeaxe.DescribeUI()) {
		t.Fatalf("describe-ui = %d bytes, %v", len(out), err)
	}
}

func TestRunWithoutAxe(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := axe.Run(context.Background(), axe.DescribeArgv("U"))
	if !fault.Is(err, fault.KindUnavailable) || !strings.Contains(err.Error(), "axe not found on PATH") {
		t.Fatalf("err = %v", err)
	}
	if err := axe.OnPath(); err == nil || !strings.Contains(err.Error(), "axe not found on PATH") {
		t.Fatalf("OnPath = %v", err)
	}
}
