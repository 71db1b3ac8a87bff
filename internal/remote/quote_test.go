package remote_test

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/remote"
)

// A quoted argv reaches the program word for word through a real shell,
// whatever it holds.
func TestCommandRoundTrip(t *testing.T) {
	hostile := [][]string{
		{"printf", "%s\\n", "a b", "it's", `"dq"`, "$(touch /nonexistent)", "`id`", ";", "|", "&&", "*", "~", "", "\n", "-x"},
		{"printf", "%s\\n", "tab\there", "back\\slash", "'''", "ünï"},
	}
	for _, argv := range hostile {
		out, err := exec.Command("sh", "-c", remote.Command(argv)).Output()
		if err != nil {
			t.Fatalf("%q: %v", remote.Command(argv), err)
		}
		want := ""
		for _, a := range argv[2:] {
			want += a + "\n"
		}
		if string(out) != want {
			t.Errorf("%q:\n got %q\nwant %q", remote.Command(argv), out, want)
		}
	}
}

func FuzzCommand(f *testing.F) {
	for _, s := range []string{"a b", "it's", "$(x)", "-", "'\"`\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			return // a NUL cannot be in an argument: nothing to check
		}
		out, err := exec.Command("sh", "-c", remote.Command([]string{"printf", "%s", s})).Output()
		if err != nil || string(out) != s {
			t.Fatalf("%q: %q, %v", s, out, err)
		}
	})
}

func TestCheckHost(t *testing.T) {
	for _, h := range []string{"", "-oProxyCommand=x", "a b", "a\nb", "a\tb"} {
		if err := remote.CheckHost(h); !errors.Is(err, remote.ErrBadHost) {
			t.Errorf("%q: %v", h, err)
		}
	}
	for _, h := range []string{"host", "user@host", "10.0.0.1", "host.example"} {
		if err := remote.CheckHost(h); err != nil {
			t.Errorf("%q: %v", h, err)
		}
	}
}
