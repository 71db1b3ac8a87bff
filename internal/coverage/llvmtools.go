package coverage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// LLVMTools are the llvm-profdata and llvm-cov that read the profiles of
// the programs one rustc or clang builds: of that compiler's LLVM major,
// since the raw profile format changes between LLVM releases.
type LLVMTools struct {
	Profdata, Cov string
	Major         int    // the LLVM major of the compiler and of the tools
	Compiler      string // "rustc 1.95.0 (LLVM 22.1.2)", for messages
}

// probeTimeout bounds one version question (rustc -vV, llvm-cov --version).
const probeTimeout = 30 * time.Second

var (
	rustcLLVMRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^LLVM version: ((\d+)\S*)`) })
	rustcHostRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^host: (\S+)`) })
	toolLLVMRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`LLVM version (\d+)`) })
)

// FindLLVMTools finds the LLVM tools for the rustc that builds in dir (the
// one PATH and RUSTC in env, over ours, name, as cargo runs it): first
// llvm-profdata-N and llvm-cov-N (Debian's llvm-N), then rustup's
// llvm-tools in rustc's sysroot, then unversioned ones whose --version
// major is N. None of them is an error saying what was tried and what to
// install.
func FindLLVMTools(ctx context.Context, dir string, env map[string]string) (*LLVMTools, error) {
	rustc := envValue(env, "RUSTC")
	if rustc == "" {
		rustc = "rustc"
	}
	out, err := probe(ctx, dir, env, rustc, "-vV")
	if err != nil {
		return nil, fmt.Errorf("no coverage: asking the rustc that builds for its LLVM version: %w", err)
	}
	m := rustcLLVMRE().FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("no coverage: %s -vV names no LLVM version:\n%s", rustc, strings.TrimSpace(out))
	}
	t := &LLVMTools{Compiler: fmt.Sprintf("%s (LLVM %s)", firstLine(out), m[1])}
	t.Major, _ = strconv.Atoi(m[2])
	// The versioned pair first: most machines have it, and it needs no
	// question to rustc about its sysroot.
	versioned := versionedPair(t.Major)
	why := versioned.check(ctx, dir, env, t.Major)
	if why == "" {
		t.Profdata, t.Cov = versioned.profdata, versioned.cov
		return t, nil
	}
	tried := []string{why}
	for _, c := range llvmCandidates(ctx, dir, env, rustc, out) {
		why := c.check(ctx, dir, env, t.Major)
		if why == "" {
			t.Profdata, t.Cov = c.profdata, c.cov
			return t, nil
		}
		tried = append(tried, why)
	}
	return nil, fmt.Errorf("no coverage: %s writes LLVM %d profiles, and no llvm-profdata and llvm-cov of LLVM %d were found (tried %s): install them with `apt-get install llvm-%d`, or `rustup component add llvm-tools`",
		t.Compiler, t.Major, t.Major, strings.Join(tried, "; "), t.Major)
}

// llvmPair is one place to take both tools from.
type llvmPair struct{ profdata, cov string }

// versionedPair is llvm-profdata-N and llvm-cov-N, as Debian's llvm-N
// names them.
func versionedPair(major int) llvmPair {
	n := strconv.Itoa(major)
	return llvmPair{"llvm-profdata-" + n, "llvm-cov-" + n}
}

// llvmCandidates are the places after the versioned names, in order:
// rustup's llvm-tools (in the sysroot's lib/rustlib/HOST/bin), plain names.
func llvmCandidates(ctx context.Context, dir string, env map[string]string, rustc, version string) []llvmPair {
	var pairs []llvmPair
	host := ""
	if m := rustcHostRE().FindStringSubmatch(version); m != nil {
		host = m[1]
	}
	if sysroot, err := probe(ctx, dir, env, rustc, "--print", "sysroot"); err == nil && host != "" {
		bin := filepath.Join(strings.TrimSpace(sysroot), "lib", "rustlib", host, "bin")
		pairs = append(pairs, llvmPair{filepath.Join(bin, "llvm-profdata"), filepath.Join(bin, "llvm-cov")})
	}
	return append(pairs, llvmPair{"llvm-profdata", "llvm-cov"})
}

// check says why the pair cannot be used ("" when it can): a tool missing,
// or of another LLVM major. The versioned pair's names carry their major:
// found on PATH, it is asked nothing (two processes fewer on every run).
func (c llvmPair) check(ctx context.Context, dir string, env map[string]string, major int) string {
	if c == versionedPair(major) {
		return c.onPath(env)
	}
	for _, argv := range [][]string{{c.profdata, "merge", "--version"}, {c.cov, "--version"}} {
		out, err := probe(ctx, dir, env, argv...)
		var se *spawn.StartError
		switch {
		case errors.As(err, &se) && se.Kind == spawn.KindNotFound:
			return argv[0] + ": not found"
		case err != nil:
			return argv[0] + ": " + err.Error()
		}
		m := toolLLVMRE().FindStringSubmatch(out)
		if m == nil {
			return argv[0] + ": names no LLVM version"
		}
		if m[1] != strconv.Itoa(major) {
			return fmt.Sprintf("%s: LLVM %s", argv[0], m[1])
		}
	}
	return ""
}

// onPath says which of the pair is not on the PATH the step runs with
// ("" when both are).
func (c llvmPair) onPath(env map[string]string) string {
	for _, name := range []string{c.profdata, c.cov} {
		if _, err := spawn.LookPath(name, envValue(env, "PATH")); err != nil {
			return name + ": not found"
		}
	}
	return ""
}

// probe runs a short question and returns what it printed.
func probe(ctx context.Context, dir string, env map[string]string, argv ...string) (string, error) {
	var out limited
	res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Dir: dir, Env: env, Combined: &out, Timeout: probeTimeout})
	if err != nil {
		return "", err
	}
	if !res.Success() {
		return "", fmt.Errorf("%s failed (%s): %s", strings.Join(argv, " "), res, firstLine(out.String()))
	}
	return out.String(), nil
}

// envValue is env's value of k, else ours.
func envValue(env map[string]string, k string) string {
	if v, ok := env[k]; ok {
		return v
	}
	return os.Getenv(k)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
