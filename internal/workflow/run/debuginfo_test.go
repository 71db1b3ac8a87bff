package run_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// listProject is a CMake project that sets no build type, whose test
// list_insert writes through a bad pointer in list_insert at list.c:6.
func listProject() map[string]string {
	return map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(mylist C)\nenable_testing()\n" +
			"add_library(mylist src/list.c)\nadd_executable(test_list tests/test_list.c)\ntarget_link_libraries(test_list mylist)\n" +
			"add_test(NAME list_insert COMMAND test_list insert)\nadd_test(NAME list_len COMMAND test_list len)\n",
		"src/list.c": "#include <stdlib.h>\nstruct node { int v; struct node *next; };\n" +
			"struct node *list_insert(struct node *head, int v) {\n  struct node *n = malloc(sizeof *n);\n  struct node *bad = (struct node *)16;\n" +
			"  bad->v = v;\n  n->v = v;\n  n->next = head;\n  return n;\n}\n",
		"tests/test_list.c": "#include <string.h>\nstruct node;\nstruct node *list_insert(struct node *head, int v);\n" +
			"int main(int argc, char **argv) {\n  if (argc > 1 && strcmp(argv[1], \"insert\") == 0)\n    return list_insert(0, 1) == 0;\n  return 0;\n}\n",
	}
}

// followHints makes the next calls a result gives, in order, as given,
// and returns the last one's result.
func followHints(t *testing.T, c *mcptest.Client, out buildTestOutput) mcptest.Result {
	t.Helper()
	if len(out.Next) == 0 {
		t.Fatalf("no next call to rebuild with debug info")
	}
	var r mcptest.Result
	for _, h := range out.Next {
		if h.Tool == "" {
			t.Fatalf("hint without a call: %s", h.Text)
		}
		if _, ok := h.Args["repeat"]; ok {
			continue // flaky or real: another question
		}
		// Through JSON, as a client sends what it read.
		var args map[string]any
		b, _ := json.Marshal(h.Args)
		json.Unmarshal(b, &args)
		r = c.Call(h.Tool, args)
	}
	return r
}

// TestCrashWithoutDebugInfo: a crash in a build without debug info says
// which file lacks it and gives the next calls that, made as given,
// answer with the crash's file:line (CMake in a configuration without -g,
// make with objects the user built without -g, run of a program built
// by CMake without -g).
func TestCrashWithoutDebugInfo(t *testing.T) {
	t.Run("cmake", func(t *testing.T) {
		nativeprojects.Need(t, "cmake", "ctest", "cc", "gdb")
		c, state := connectWithStore(t)
		dir := nativeprojects.Write(t, listProject())
		// triage adds -g to a build type without it; -g0 in the project's
		// flags takes it away again.
		args := map[string]any{"configuration": "release", "configure_args": []string{"-DCMAKE_C_FLAGS=-g0"}}
		out := checkCrash(t, c, state, dir, args, crashCase{
			verdict: []string{"SIGSEGV in list_insert", "no debug info in test_list", "while running list_insert"},
			core:    true,
		})
		if nd := out.Crash.NoDebugInfo; nd == nil || !strings.HasPrefix(nd.File, filepath.Join(dir, ".triage/build/release-g-")) || filepath.Base(nd.File) != "test_list" {
			t.Errorf("no_debug_info %+v", out.Crash.NoDebugInfo)
		}
		r := followHints(t, c, out)
		if !strings.Contains(r.FirstLine(), "in list_insert at list.c:6 while running list_insert") {
			t.Errorf("after the hinted call: %s", r.Text)
		}
		var again buildTestOutput
		r.Decode(t, &again)
		if again.Tests == nil || again.Tests.Totals.Total != 1 {
			t.Errorf("the hinted call did not run just the crashed test: %+v", again.Tests)
		}
	})
	t.Run("make", func(t *testing.T) {
		nativeprojects.Need(t, "make", "cc", "gdb")
		c, state := connectWithStore(t)
		dir := nativeprojects.Write(t, map[string]string{
			"Makefile": "CFLAGS = -O0\n\ncrasher: crasher.o lib.o\n\t$(CC) $(CFLAGS) -o $@ crasher.o lib.o\n\n" +
				"test: crasher\n\t./crasher\n\nclean:\n\trm -f crasher *.o\n",
			"lib.c":     "int name_length(const char *s) {\n  int n = 0;\n  while (s[n]) n++;\n  return n;\n}\n",
			"crasher.c": "int name_length(const char *s);\nint main(void) { return name_length(0); }\n",
		})
		// The user's own build, without -g: make will not recompile it.
		cmd := exec.Command("make", "crasher")
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make: %v\n%s", err, b)
		}
		out := checkCrash(t, c, state, dir, nil, crashCase{
			verdict: []string{"SIGSEGV in name_length", "no debug info in crasher"},
			core:    true,
		})
		if len(out.Next) != 2 || out.Next[0].Tool != "build" {
			t.Fatalf("next %+v, want a clean build, then test", out.Next)
		}
		r := followHints(t, c, out)
		if !strings.Contains(r.FirstLine(), "in name_length at lib.c:3") {
			t.Errorf("after the hinted calls: %s", r.Text)
		}
	})
	t.Run("run", func(t *testing.T) {
		nativeprojects.Need(t, "cmake", "cc", "gdb")
		c, _ := connectWithStore(t)
		dir := nativeprojects.Write(t, listProject())
		// The user's own build directory, configured with no build type.
		for _, argv := range [][]string{{"cmake", "-S", ".", "-B", "build"}, {"cmake", "--build", "build"}} {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = dir
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %v\n%s", argv, err, b)
			}
		}
		r := c.Call("run", map[string]any{"program": "build/test_list", "args": []string{"insert"}, "project_dir": dir})
		if !strings.Contains(r.FirstLine(), "in list_insert (no debug info in test_list)") {
			t.Fatalf("verdict %q\n%s", r.FirstLine(), r.Text)
		}
		var out struct {
			Verdict struct {
				Hints []struct {
					Text, Tool string
					Args       map[string]any
				}
			}
		}
		r.Decode(t, &out)
		var last mcptest.Result
		for _, h := range out.Verdict.Hints {
			if h.Tool == "dump_open" {
				break
			}
			if h.Tool == "" {
				t.Fatalf("hint without a call: %s", h.Text)
			}
			last = c.Call(h.Tool, h.Args)
		}
		if !strings.Contains(last.FirstLine(), "in list_insert at list.c:6") {
			t.Errorf("after the hinted calls: %s", last.Text)
		}
	})
}

// TestFirstAnswerHasTheCrashLine: a CMake project that sets no build type,
// whose test dereferences a bad pointer, gets the faulting frame's
// file:line in its first test answer: triage builds with debug info by
// default, in its own build directory.
func TestFirstAnswerHasTheCrashLine(t *testing.T) {
	nativeprojects.Need(t, "cmake", "ctest", "cc", "gdb")
	c, state := connectWithStore(t)
	dir := nativeprojects.Write(t, listProject())
	out := checkCrash(t, c, state, dir, nil, crashCase{
		verdict: []string{"SIGSEGV in list_insert at list.c:6", "while running list_insert"},
		core:    true,
	})
	if out.Crash.NoDebugInfo != nil {
		t.Errorf("the default build has no debug info: %+v", out.Crash.NoDebugInfo)
	}
	if _, err := os.Stat(filepath.Join(dir, "build")); !os.IsNotExist(err) {
		t.Errorf("triage made or changed the user's build/: %v", err)
	}
}
