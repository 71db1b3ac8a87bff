package doctor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// runtimeProbe is one sanitizer runtime: its gcc library and clang's, and
// what the test tool's check it enables.
type runtimeProbe struct {
	lib, clang, enables string
}

// sanitizerRuntimes are the runtimes a sanitizer build links: without
// them the compiler takes -fsanitize and the link fails.
var sanitizerRuntimes = []runtimeProbe{
	{"libasan", "asan", "check: memory (AddressSanitizer builds)"},
	{"liblsan", "lsan", "check: leaks (LeakSanitizer; ASan builds include it)"},
	{"libubsan", "ubsan_standalone", "check: undefined (UBSan builds)"},
	{"libtsan", "tsan", "check: thread (ThreadSanitizer builds)"},
}

// inspectSanitizers lists the sanitizer runtimes of gcc (libasan…) and
// clang (clang_rt-asan…), for each compiler installed, as tools: found
// with the compiler's version, or missing with what installs them.
func inspectSanitizers(ctx context.Context, timeout time.Duration) []Tool {
	var tools []Tool
	if gcc, err := exec.LookPath("gcc"); err == nil {
		version := compilerOutput(ctx, timeout, gcc, "-dumpversion")
		for _, p := range sanitizerRuntimes {
			t := Tool{Name: p.lib, Purpose: p.enables, Status: StatusMissing, runtime: true,
				Install: "apt-get install " + p.lib + "N, the one of gcc " + version}
			// gcc prints the name back unchanged when it has no such file.
			if path := compilerOutput(ctx, timeout, gcc, "-print-file-name="+p.lib+".so"); filepath.IsAbs(path) {
				t.Status, t.Path, t.Version, t.Install = StatusOK, path, "gcc "+version, ""
			}
			tools = append(tools, t)
		}
	}
	if clang, err := exec.LookPath("clang"); err == nil {
		dir := compilerOutput(ctx, timeout, clang, "-print-runtime-dir")
		version := compilerOutput(ctx, timeout, clang, "-dumpversion")
		for _, p := range sanitizerRuntimes {
			t := Tool{Name: "clang_rt-" + p.clang, Purpose: p.enables, Status: StatusMissing, runtime: true,
				Install: "apt-get install libclang-rt-" + strings.Split(version, ".")[0] + "-dev"}
			if path := clangRuntime(dir, p.clang); path != "" {
				t.Status, t.Path, t.Version, t.Install = StatusOK, path, "clang "+version, ""
			}
			tools = append(tools, t)
		}
	}
	return tools
}

// clangRuntime is clang's runtime library of a sanitizer in its runtime
// directory: libclang_rt.NAME.a in a per-target directory, or
// libclang_rt.NAME-ARCH.a in the older layout.
func clangRuntime(dir, name string) string {
	if dir == "" {
		return ""
	}
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	for _, f := range []string{"libclang_rt." + name + ".a", "libclang_rt." + name + "-" + arch + ".a"} {
		for _, d := range []string{dir, filepath.Join(filepath.Dir(dir), "linux")} {
			if _, err := os.Stat(filepath.Join(d, f)); err == nil {
				return filepath.Join(d, f)
			}
		}
	}
	return ""
}

// compilerOutput is the first line a compiler prints for args, "" when
// it cannot say.
func compilerOutput(ctx context.Context, timeout time.Duration, compiler string, args ...string) string {
	var out strings.Builder
	res, err := spawn.Run(ctx, spawn.Spec{Argv: append([]string{compiler}, args...), Combined: &limitedWriter{w: &out, n: 4096}, Timeout: timeout})
	if err != nil || !res.Exited || res.ExitCode != 0 {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
	return first
}
