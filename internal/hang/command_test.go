package hang

import (
	"os"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/coredump"
)

// A hung stack no test is named for is named by its process's command
// line when it has arguments: the script an interpreter runs.
func TestPhraseNamesCommand(t *testing.T) {
	s := Stuck{Kind: KindThread, Reason: "running", Command: "perl -w t/01level0.t",
		Frame: coredump.Frame{Function: "XS_Perl__Destruct__Level_get_destruct_level", File: "/src/Level.xs", Line: 18}}
	got := Phrase([]Stuck{s})
	if !strings.Contains(got, "in XS_Perl__Destruct__Level_get_destruct_level (in `perl -w t/01level0.t`)") {
		t.Errorf("Phrase = %q", got)
	}
	s.Test = "01level0.t"
	if got := Phrase([]Stuck{s}); strings.Contains(got, "perl -w") {
		t.Errorf("with a test named: %q", got)
	}
}

func TestCommandLine(t *testing.T) {
	got := commandLine(os.Getpid())
	if len(os.Args) > 1 && !strings.Contains(got, os.Args[1]) {
		t.Errorf("commandLine(self) = %q, args %q", got, os.Args)
	}
	if commandLine(-1) != "" {
		t.Error("a pid that is none has a command line")
	}
}
