package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/testreport"
)

// TestExitRunning: the stack at a program's exit names the case around
// its innermost frame in a test's body (a relative file found in the
// directories given), and the exit's caller in the project; a Check test's
// function names it without its source; a stack in no test names none.
func TestExitRunning(t *testing.T) {
	dir := t.TempDir()
	src := "#include <check.h>\nSTART_TEST(test_parse)\n{\n    leave();\n}\nEND_TEST\n"
	if err := os.WriteFile(filepath.Join(dir, "check_own.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	exit := coredump.Frame{Index: 0, Function: "__GI_exit", Module: "/lib/x86_64-linux-gnu/libc.so.6"}
	leave := coredump.Frame{Index: 1, Function: "leave", File: filepath.Join(dir, "lib.c"), Line: 9}
	for _, c := range []struct {
		name   string
		frames []coredump.Frame
		fw     string
		want   testreport.Running
		ok     bool
	}{
		{"source", []coredump.Frame{exit, leave, {Index: 2, Function: "test_parse_fn", File: "check_own.c", Line: 4}}, "",
			testreport.Running{Name: "test_parse", Site: "exit called in leave at lib.c:9"}, true},
		{"check function", []coredump.Frame{exit, leave, {Index: 2, Function: "test_emit_fn", File: "gone.c", Line: 4}}, "Check",
			testreport.Running{Name: "test_emit", Site: "exit called in leave at lib.c:9"}, true},
		{"not check", []coredump.Frame{exit, leave, {Index: 2, Function: "test_emit_fn", File: "gone.c", Line: 4}}, "",
			testreport.Running{}, false},
		{"after the tests", []coredump.Frame{exit, {Index: 1, Function: "main", File: "check_own.c", Line: 1}}, "Check",
			testreport.Running{}, false},
	} {
		got, ok := exitRunning(c.frames, c.fw, []string{"", dir}, dir)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
