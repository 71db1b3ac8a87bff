package testreport

import (
	"strings"
	"testing"
	"time"
)

// mesonTimeoutTally is the tally closing a run of one test that timed out.
const mesonTimeoutTally = `
Ok:                 0   
Expected Fail:      0   
Fail:               0   
Unexpected Pass:    0   
Skipped:            0   
Timeout:            1   

Full log written to /src/build/meson-logs/testlog.txt
`

// A test meson test stopped at its own time limit is a timeout, as CTest's
// "***Timeout" is: errored, of Kind KindTimeout, its message saying after
// how long (and how meson killed it), in the console's every shape and in
// testlog.json.
func TestMesonTimeout(t *testing.T) {
	const name = "Resolve unknown current user"
	for _, tt := range []struct {
		name, log string
		want      string // the message's first line
	}{
		{"result line", " 1/1 " + name + " TIMEOUT 30.03s\n", "timed out after 30.03 s"},
		{"SIGTERM", "1/1 " + name + " TIMEOUT         30.03s   killed by signal 15 SIGTERM\n",
			"timed out after 30.03 s (killed by signal 15 SIGTERM)"},
		{"SIGKILL", "1/1 " + name + " TIMEOUT         31.52s   killed by signal 9 SIGKILL\n",
			"timed out after 31.52 s (killed by signal 9 SIGKILL)"},
		{"through a shell", "1/1 " + name + " TIMEOUT         30.01s   (exit status 143 or signal 15 SIGTERM)\n",
			"timed out after 30.01 s (exit status 143 or signal 15 SIGTERM)"},
		{"with its output", name + " time out (After 30.0 seconds)\n" +
			"1/1 " + name + " TIMEOUT         30.03s   killed by signal 15 SIGTERM\n" +
			">>> MALLOC_PERTURB_=167 /src/build/tests/resolve-unknown-current-user.t\n" +
			"――――――――――――――――――――――――――――――――――――― ✀  ―――――――――――――――――――――――――――――――――――――\n" +
			"ok 1 - getent passwd finds root\n" +
			"――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――\n" +
			"\nSummary of Failures:\n\n1/1 " + name + " TIMEOUT         30.03s   killed by signal 15 SIGTERM\n",
			"timed out after 30.03 s (killed by signal 15 SIGTERM): ok 1 - getent passwd finds root"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := ParseAuto(strings.NewReader("ninja: no work to do.\n" + tt.log + mesonTimeoutTally))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Format != FormatMeson || len(rep.Cases) != 1 {
				t.Fatalf("format %q, cases %+v; want meson's one test", rep.Format, rep.Cases)
			}
			checkMesonTimeout(t, rep, name, tt.want, 0)
		})
	}
}

// checkMesonTimeout checks that rep's one case is name, timed out with
// the message want (its first line), and, when d is set, after d.
func checkMesonTimeout(t *testing.T, rep *Report, name, want string, d time.Duration) {
	t.Helper()
	c := rep.Cases[0]
	first, _, _ := strings.Cut(c.Message, "\n")
	if c.Name != name || c.Status != Errored || c.Kind != KindTimeout || first != want {
		t.Errorf("case %+v, want %q errored, of kind %q, %q", c, name, KindTimeout, want)
	}
	if d != 0 && c.Duration != d {
		t.Errorf("duration %v, want %v", c.Duration, d)
	}
	if rep.Totals != (Totals{Total: 1, Errored: 1}) || rep.Status != Errored {
		t.Errorf("totals %+v, status %s; want one errored", rep.Totals, rep.Status)
	}
}

// testlog.json's record of a test meson stopped at its time limit says
// what the console says: result TIMEOUT, returncode -15 (meson's SIGTERM).
func TestMesonTestlogTimeout(t *testing.T) {
	const name = "Resolve unknown current user"
	rec := `{"name": "` + name + `", "stdout": "ok 1 - getent passwd finds root\n", "result": "TIMEOUT", "is_fail": true,` +
		` "starttime": 1795922017.944119, "duration": 30.02906060218811, "returncode": -15,` +
		` "env": {"MALLOC_PERTURB_": "167"}, "command": ["/src/build/tests/resolve-unknown-current-user.t"]}` + "\n"
	rep, err := ParseMesonTestlog(strings.NewReader(rec))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 1 {
		t.Fatalf("cases %+v, want one", rep.Cases)
	}
	checkMesonTimeout(t, rep, name, "timed out after 30.03 s (killed by signal 15 SIGTERM): ok 1 - getent passwd finds root", 30029060602*time.Nanosecond)
}

// In every recording of the demo project, console and testlog.json, the
// test that hangs is of Kind KindTimeout, and no other test is.
func TestMesonRecordedTimeouts(t *testing.T) {
	for _, file := range []string{"demo.txt", "demo-tty.txt", "demo-errorlogs.txt", "demo-verbose.txt", "demo-verbose-serial.txt",
		"demo-1.12-errorlogs.txt", "demo.json", "demo-errorlogs.json", "demo-verbose-serial.json", "demo-1.12-errorlogs.json"} {
		var rep *Report
		if strings.HasSuffix(file, ".json") {
			rep = mesonTestlog(t, file)
		} else {
			rep = mesonConsole(t, file)
		}
		for _, c := range rep.Cases {
			if hang := strings.HasSuffix(c.Name, "hang"); hang != (c.Kind == KindTimeout) {
				t.Errorf("%s: %q is of kind %q (%s %q)", file, c.Name, c.Kind, c.Status, c.Message)
			}
		}
	}
}
