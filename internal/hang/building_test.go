package hang_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/hangers"
)

func TestBuildTool(t *testing.T) {
	for exe, want := range map[string]string{
		"/usr/local/go/pkg/tool/linux_amd64/compile":                         "go's compiler",
		"/usr/lib/go-1.22/pkg/tool/linux_arm64/link":                         "go's linker",
		"/usr/local/go/pkg/tool/linux_amd64/covdata":                         "go's covdata tool",
		"/usr/local/go/bin/go":                                               "the go command",
		"/usr/lib/gcc/x86_64-linux-gnu/12/cc1":                               "gcc's compiler (cc1)",
		"/usr/libexec/gcc/x86_64-redhat-linux/13/cc1plus":                    "g++'s compiler (cc1plus)",
		"/usr/bin/x86_64-linux-gnu-gcc-12":                                   "gcc",
		"/usr/bin/arm-none-eabi-ld.bfd":                                      "the linker (ld.bfd)",
		"/usr/lib/llvm-16/bin/clang-16":                                      "clang",
		"/usr/bin/ld.lld-16":                                                 "the linker (ld.lld)",
		"/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/rustc": "rustc",
		"/usr/bin/as (deleted)":                                              "the assembler (as)",
		"/tmp/go-build1234/b001/slow.test":                                   "",
		"/proj/target/debug/deps/crashy-1f2e3d4c5b6a7980":                    "",
		"/proj/target/debug/build/foo-0123456789abcdef/build-script-build":   "",
		"/proj/build/tests/test-cc":                                          "",
		"/proj/my-test-make":                                                 "",
		"/proj/compile":                                                      "",
		"":                                                                   "",
		"/proj/build/gen":                                                    "",
		"/usr/lib/gcc/x86_64-linux-gnu/12/../../../x86_64-linux-gnu/bin/ld.gold": "the linker (ld.gold)",
	} {
		if got := hang.BuildTool(exe); got != want {
			t.Errorf("BuildTool(%q) = %q, want %q", exe, got, want)
		}
	}
}

// fakeCompiler is a real process whose executable is go's compiler by
// its path (GOROOT/pkg/tool/GOOS_GOARCH/compile): the sleeper crasher,
// which prints "ready" and sleeps.
func fakeCompiler(t *testing.T) string {
	t.Helper()
	sleeper := crashers.Build(t, "sleeper")
	b, err := os.ReadFile(sleeper)
	if err != nil {
		t.Fatal(err)
	}
	compile := filepath.Join(t.TempDir(), "go", "pkg", "tool", "linux_amd64", "compile")
	os.MkdirAll(filepath.Dir(compile), 0o755)
	if err := os.WriteFile(compile, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return compile
}

// TestCapturePrefersTheProgramToTheCompiler: a group in which a compiler
// and a program of the project both run has the program's stacks taken,
// and no compiler's; one in which only the build's tools run has none
// taken, and says it was still building.
func TestCapturePrefersTheProgramToTheCompiler(t *testing.T) {
	compile := fakeCompiler(t)
	t.Run("a program runs", func(t *testing.T) {
		p := hangers.ABBA(t)
		// The program starts once the compiler has printed (so is running),
		// and prints "ready" when deadlocked.
		h := runHung(t, p.Dir, "/bin/sh", "-c", compile+" 3600 | (read x; exec "+p.Bin+")")
		if len(h.report.Building) > 0 || len(h.report.Processes) != 1 || h.report.Processes[0].Comm != "abba" {
			h.fatalf(t, "processes %+v, building %v: want abba's stacks alone", h.report.Processes, h.report.Building)
		}
		if phrase := hang.Phrase(h.report.Analyze("")); !strings.HasPrefix(phrase, "deadlocked: ") {
			h.fatalf(t, "phrase %q: want abba's deadlock", phrase)
		}
	})
	t.Run("only the compiler runs", func(t *testing.T) {
		h := runHung(t, t.TempDir(), "/bin/sh", "-c", compile+" 3600; true")
		if len(h.report.Processes) > 0 || len(h.report.Stacks) > 0 || strings.Join(h.report.Building, ",") != "go's compiler" {
			h.fatalf(t, "processes %+v, building %v: want no stacks, still building in go's compiler", h.report.Processes, h.report.Building)
		}
		if len(h.report.Notes) == 0 || !strings.HasPrefix(h.report.Notes[0], "still building: only the build's tools were running (go's compiler pid ") {
			h.fatalf(t, "notes %q", h.report.Notes)
		}
	})
}
