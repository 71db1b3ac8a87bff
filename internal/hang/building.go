package hang

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/spawn"
)

// A time limit that passes while a test run is still building (`go test`
// compiling, `cargo test`'s rustc, `make test`'s cc1) has no test to
// blame: the compiler's stacks say where the compiler was, not where a
// test hung. The group's processes are told apart by their executables: a
// build tool (a compiler, assembler, linker, or the driver that runs them)
// is never taken for the program under test, a leaf that is not one is
// preferred to those that are, and when the build's tools are all there is
// no stacks are taken and the report says it was building (Report.Building).

// goToolDir is the directory of the go command's own tools:
// GOROOT/pkg/tool/GOOS_GOARCH.
var goToolDir = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/pkg/tool/[a-z0-9]+_[a-z0-9]+$`) })

// goTools name the go command's tools.
var goTools = map[string]string{
	"compile": "go's compiler", "link": "go's linker", "asm": "go's assembler", "cgo": "cgo",
	"vet": "go vet", "cover": "go's cover tool", "buildid": "go's buildid tool", "pack": "go's pack tool",
}

// nativeTools name compilers, assemblers, linkers and build drivers by
// the base name of their executable (without a version suffix or a
// target prefix: x86_64-linux-gnu-gcc-12 is gcc).
var nativeTools = map[string]string{
	"cc1": "gcc's compiler (cc1)", "cc1plus": "g++'s compiler (cc1plus)", "cc1obj": "gcc's compiler (cc1obj)",
	"cc1objplus": "gcc's compiler (cc1objplus)", "f951": "gfortran's compiler (f951)", "lto1": "gcc's LTO compiler (lto1)",
	"lto-wrapper": "gcc's lto-wrapper", "collect2": "the linker (collect2)", "ld": "the linker (ld)",
	"ld.bfd": "the linker (ld.bfd)", "ld.gold": "the linker (ld.gold)", "gold": "the linker (gold)",
	"ld.lld": "the linker (ld.lld)", "lld": "the linker (lld)", "mold": "the linker (mold)", "ld.mold": "the linker (mold)",
	"as": "the assembler (as)", "ar": "ar", "ranlib": "ranlib",
	"gcc": "gcc", "g++": "g++", "cc": "cc", "c++": "c++", "cpp": "cpp", "gfortran": "gfortran", "gccgo": "gccgo",
	"clang": "clang", "clang++": "clang++", "clang-cl": "clang", "tcc": "tcc", "nvcc": "nvcc",
	"rustc": "rustc", "rustdoc": "rustdoc", "cargo": "cargo", "go": "the go command",
	"swiftc": "swiftc", "swift-frontend": "swift-frontend", "swift-build": "swift-build", "swift-driver": "swift-driver",
	"ccache": "ccache", "sccache": "sccache", "distcc": "distcc",
	"make": "make", "gmake": "make", "ninja": "ninja", "cmake": "cmake",
}

// versionSuffix is "-12", "-16.0.6" of gcc-12, clang-16.0.6.
var versionSuffix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-[0-9]+(\.[0-9]+)*$`) })

// BuildTool names the build tool an executable is ("go's compiler",
// "gcc's compiler (cc1)", "rustc"), or "" when it is none.
func BuildTool(exe string) string {
	exe = strings.TrimSuffix(exe, " (deleted)")
	if exe == "" {
		return ""
	}
	base := filepath.Base(exe)
	if filepath.IsAbs(exe) && goToolDir().MatchString(filepath.Dir(exe)) {
		if d, ok := goTools[base]; ok {
			return d
		}
		return "go's " + base + " tool"
	}
	name := versionSuffix().ReplaceAllString(base, "")
	if d, ok := nativeTools[name]; ok {
		return d
	}
	if m := targetPrefix().FindStringSubmatch(name); m != nil {
		if d, ok := nativeTools[m[1]]; ok {
			return d
		}
	}
	return ""
}

// targetPrefix is a cross tool's target triple, "x86_64-linux-gnu-" of
// x86_64-linux-gnu-gcc: an architecture first, so that a program of the
// project's named "test-cc" is not taken for a compiler.
var targetPrefix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:x86_64|i[3-6]86|aarch64|arm\w*|riscv(?:32|64)|powerpc\w*|ppc64\w*|s390x|mips\w*|loongarch64|wasm32)(?:-\w+){1,3}-([^-]+)$`)
})

// buildTool names the build tool process pid runs, or "": its executable,
// or the go tool that a -toolexec wrapper is running (the wrapper's first
// argument is the tool's absolute path).
func buildTool(pid int) string {
	exe, _ := os.Readlink(exePath(pid))
	if d := BuildTool(exe); d != "" {
		return d
	}
	b, err := os.ReadFile(cmdlinePath(pid))
	if err != nil {
		return ""
	}
	args := strings.Split(string(b), "\x00")
	if len(args) > 1 && filepath.IsAbs(args[1]) && goToolDir().MatchString(filepath.Dir(args[1])) {
		return BuildTool(args[1])
	}
	return ""
}

// drivers run a build's tools without being one of the project's
// programs: a shell running a recipe, the runners of the build.
func isDriver(pid int) bool {
	if buildTool(pid) != "" {
		return true
	}
	exe, _ := os.Readlink(exePath(pid))
	switch versionSuffix().ReplaceAllString(filepath.Base(exe), "") {
	case "sh", "bash", "dash", "zsh", "ksh", "busybox", "env", "nice", "timeout", "xargs":
		return true
	}
	return false
}

// splitBuilding sorts a group's leaves into the build's tools (described)
// and the others, the ones doing the work; zombies are neither.
func splitBuilding(leaves []spawn.Member) (tools []string, toolPids []int, rest []spawn.Member) {
	for _, m := range leaves {
		if m.State == 'Z' {
			continue
		}
		if d := buildTool(m.Pid); d != "" {
			tools = append(tools, d)
			toolPids = append(toolPids, m.Pid)
			continue
		}
		rest = append(rest, m)
	}
	return tools, toolPids, rest
}

// onlyBuilding reports whether every member of the group that has
// children is a build tool or a driver of one: no test runner or program
// of the project's started the tools.
func onlyBuilding(members, leaves []spawn.Member) bool {
	leaf := make(map[int]bool, len(leaves))
	for _, m := range leaves {
		leaf[m.Pid] = true
	}
	for _, m := range members {
		if !leaf[m.Pid] && m.State != 'Z' && !isDriver(m.Pid) {
			return false
		}
	}
	return true
}

// pidList is "go's compiler pid 4242, go's linker pid 4250".
func pidList(tools []string, pids []int) string {
	parts := make([]string, len(tools))
	for i, t := range tools {
		parts[i] = t + " pid " + strconv.Itoa(pids[i])
	}
	return strings.Join(parts, ", ")
}
