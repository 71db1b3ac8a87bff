// Package crashers builds small misbehaving programs for tests: a null
// dereference, abort, SIGFPE, sanitizer reports, Go and Rust panics, a
// child that lies about success, one that refuses to die, and more.
//
// Import it from _test files only. Build compiles a program at most once
// per process and caches the binary across packages and runs in a
// directory keyed by a hash of the source, the flags and the compiler's
// version ($TRIAGE_TEST_CACHE, else os.UserCacheDir()/triage-test). Binaries
// are written under a temporary name and renamed into place, so concurrent
// `go test` processes never see a half-written file. The source stays next to
// the binary, in BINARY.d/ (see Source), so debuggers can list it. Compilers
// run through spawn, like every other process in triage.
//
// The programs, by name (see Names):
//
//	segv          NULL dereference in crash_here() at segv.c:5 (-g -O0): SIGSEGV
//	segvnodebug   the same, built without -g: no DWARF, a symbol table
//	segvstripped  the same, built without -g and stripped (-s)
//	abort         abort(): SIGABRT
//	fpe           integer division by zero in divide(): SIGFPE
//	trap          __builtin_trap(): SIGILL on x86, SIGTRAP on arm64
//	stackoverflow unbounded recursion: SIGSEGV
//	hashgrow      a hash table whose grow masks with the size, not size - 1:
//	              list_insert(node=0x0) at hashgrow.c:23, called from
//	              table_grow at hashgrow.c:53 with t->slots[i]; ARG wrapped:
//	              through bucket_add(bucket) at hashgrow.c:29, called at
//	              hashgrow.c:51; ARG main: a NULL local read in main at
//	              hashgrow.c:68. SIGSEGV
//	doublefree    glibc "free(): double free detected": SIGABRT
//	heapoverflow  [-]: fill() at heapoverflow.c:7 writes 40 bytes (with -, as
//	              many as stdin says) into a 24-byte block allocated at
//	              heapoverflow.c:15; the malloc at heapoverflow.c:17 dies on
//	              it: "malloc(): corrupted top size", SIGABRT
//	useafterfree  sum() at useafterfree.c:17 reads a node freed at
//	              useafterfree.c:26 (allocated at :23) whose block glibc
//	              handed out again: SIGSEGV at the wild 0x5a5a5a5a5a62
//	fakecorrupt   prints glibc's "free(): invalid pointer" and sends itself
//	              SIGSEGV: looks like memory corruption, is none
//	oobread       sum() at oobread.c:7 reads one int past a 16-byte block
//	              allocated at oobread.c:12; prints "done", exits 0
//	leakplain     leak.c without a sanitizer: 64 bytes allocated at
//	              leak.c:6 lost; exits 0
//	uninit        main branches at uninit.c:17 on a field conf_new left
//	              unset (allocated at uninit.c:10); prints "done", exits 0
//	assert        failed assert() in check() at assert.c:4: SIGABRT
//	stacksmash    strcpy overflow, -fstack-protector-all: "*** stack smashing
//	              detected ***", SIGABRT
//	asan          AddressSanitizer heap-buffer-overflow: exit 1
//	ubsan         UBSan signed overflow, -fno-sanitize-recover: exit 1
//	ubsanrecover  the same, UBSan recovering (its default): report, exit 0
//	leak          LeakSanitizer report (under ASan): exit 1
//	tsan          ThreadSanitizer data race: exit 66
//	cxxthrow      uncaught std::runtime_error: "terminate called...", SIGABRT
//	gopanic       Go index out of range panic: exit 2
//	gonilmap      Go "assignment to entry in nil map": exit 2
//	godeadlock    Go "all goroutines are asleep - deadlock!": exit 2
//	gorace        Go race detector "WARNING: DATA RACE": exit 66
//	rustpanic     Rust index out of bounds panic: exit 101
//	buildkill     prints "** BUILD SUCCEEDED **" then SIGKILLs itself
//	exit0panic    prints a Go panic and exits 0
//	sigtermfork   ARG hang|exit: ignores SIGTERM, forks a grandchild holding
//	              stdout, prints "grandchild PID"
//	sleeper       ARG seconds: prints "ready", sleeps
//	bigoutput     ARG bytes: writes that many bytes of 100-byte lines
//	exitwith      ARGS code [line]: prints line to stderr, exits with code
//	loop          ARG n (default 10000): calls step(i, acc) at loop.c:7 n
//	              times, prints acc=n*(n-1), exits 0
package crashers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

//go:embed src
var sources embed.FS

type lang int

const (
	langC lang = iota
	langCXX
	langGo
	langRust
)

type program struct {
	src   string
	lang  lang
	flags []string
}

var cflags = []string{"-g", "-O0"}

var programs = map[string]program{
	"segv":          {src: "segv.c", lang: langC, flags: cflags},
	"nullderef":     {src: "nullderef.c", lang: langC, flags: cflags},
	"segvnodebug":   {src: "segv.c", lang: langC, flags: []string{"-O0"}},
	"segvstripped":  {src: "segv.c", lang: langC, flags: []string{"-O0", "-s"}},
	"abort":         {src: "abort.c", lang: langC, flags: cflags},
	"fpe":           {src: "fpe.c", lang: langC, flags: cflags},
	"trap":          {src: "trap.c", lang: langC, flags: cflags},
	"stackoverflow": {src: "stackoverflow.c", lang: langC, flags: cflags},
	"hashgrow":      {src: "hashgrow.c", lang: langC, flags: cflags},
	"doublefree":    {src: "doublefree.c", lang: langC, flags: cflags},
	"heapoverflow":  {src: "heapoverflow.c", lang: langC, flags: cflags},
	"useafterfree":  {src: "useafterfree.c", lang: langC, flags: cflags},
	"fakecorrupt":   {src: "fakecorrupt.c", lang: langC, flags: cflags},
	"oobread":       {src: "oobread.c", lang: langC, flags: cflags},
	"leakplain":     {src: "leak.c", lang: langC, flags: cflags},
	"uninit":        {src: "uninit.c", lang: langC, flags: cflags},
	"assert":        {src: "assert.c", lang: langC, flags: cflags},
	"stacksmash":    {src: "stacksmash.c", lang: langC, flags: append(slices.Clone(cflags), "-fstack-protector-all", "-D_FORTIFY_SOURCE=0")},
	"asan":          {src: "asan.c", lang: langC, flags: append(slices.Clone(cflags), "-fsanitize=address")},
	"ubsan":         {src: "ubsan.c", lang: langC, flags: append(slices.Clone(cflags), "-fsanitize=undefined", "-fno-sanitize-recover=all")},
	"ubsanrecover":  {src: "ubsan.c", lang: langC, flags: append(slices.Clone(cflags), "-fsanitize=undefined")},
	"leak":          {src: "leak.c", lang: langC, flags: append(slices.Clone(cflags), "-fsanitize=address")},
	"tsan":          {src: "tsan.c", lang: langC, flags: append(slices.Clone(cflags), "-fsanitize=thread", "-pthread")},
	"cxxthrow":      {src: "cxxthrow.cc", lang: langCXX, flags: cflags},
	"gopanic":       {src: "gopanic.go", lang: langGo},
	"gonilmap":      {src: "gonilmap.go", lang: langGo},
	"godeadlock":    {src: "godeadlock.go", lang: langGo},
	"gorace":        {src: "gorace.go", lang: langGo, flags: []string{"-race"}},
	"rustpanic":     {src: "rustpanic.rs", lang: langRust, flags: []string{"-g"}},
	"buildkill":     {src: "buildkill.c", lang: langC, flags: cflags},
	"exit0panic":    {src: "exit0panic.c", lang: langC, flags: cflags},
	"sigtermfork":   {src: "sigtermfork.c", lang: langC, flags: cflags},
	"sleeper":       {src: "sleeper.c", lang: langC, flags: cflags},
	"bigoutput":     {src: "bigoutput.c", lang: langC, flags: []string{"-O2"}},
	"exitwith":      {src: "exitwith.c", lang: langC, flags: cflags},
	"loop":          {src: "loop.c", lang: langC, flags: cflags},
}

// Names lists every program Build knows, sorted.
func Names() []string {
	names := make([]string, 0, len(programs))
	for n := range programs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Source returns the file name of a program's source (e.g. "segv.c"), which
// is also the file name that appears in its debug info and backtraces. The
// file itself is at filepath.Join(Build(t, name)+".d", Source(name)).
func Source(name string) string { return programs[name].src }

// compilers maps each language to its command and install hint.
var compilers = map[lang]struct {
	cmd, versionFlag, install string
}{
	langC:    {"gcc", "--version", "apt-get install gcc"},
	langCXX:  {"g++", "--version", "apt-get install g++"},
	langGo:   {"go", "version", "https://go.dev/dl"},
	langRust: {"rustc", "-vV", "apt-get install rustc (or rustup)"},
}

type built struct {
	once       sync.Once
	path, skip string
	err        error
}

var (
	mu    sync.Mutex
	cache = map[string]*built{}
)

// Build returns the path of the named program, compiling it if the cache
// does not hold it yet. It skips the test when the compiler (or a sanitizer
// runtime) is missing, and fails it on any other build error.
func Build(t testing.TB, name string) string {
	t.Helper()
	p, ok := programs[name]
	if !ok {
		t.Fatalf("crashers: no program %q (have %v)", name, Names())
	}
	mu.Lock()
	b := cache[name]
	if b == nil {
		b = &built{}
		cache[name] = b
	}
	mu.Unlock()
	b.once.Do(func() { b.path, b.skip, b.err = build(name, p) })
	switch {
	case b.skip != "":
		t.Skip(b.skip)
	case b.err != nil:
		t.Fatalf("crashers: %v", b.err)
	}
	return b.path
}

// CacheDir is where built programs are kept.
func CacheDir() string {
	if d := os.Getenv("TRIAGE_TEST_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "triage-test")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("triage-test-%d", os.Getuid()))
}

// compileArgv is the command that compiles p's source into out; cc is the
// C or C++ compiler.
func compileArgv(p program, cc, out string) []string {
	switch p.lang {
	case langC, langCXX:
		return append(append([]string{cc}, p.flags...), "-o", out, p.src)
	case langGo:
		return append(append([]string{"go", "build"}, p.flags...), "-o", out, p.src)
	case langRust:
		return append(append([]string{"rustc"}, p.flags...), "-o", out, p.src)
	}
	return nil
}

func build(name string, p program) (path, skip string, err error) {
	comp := compilers[p.lang]
	if _, err := exec.LookPath(comp.cmd); err != nil {
		return "", fmt.Sprintf("crashers: %s needs %s, which is not installed (%s)", name, comp.cmd, comp.install), nil
	}
	src, err := sources.ReadFile("src/" + p.src)
	if err != nil {
		return "", "", err
	}
	version, err := compilerVersion(comp.cmd, comp.versionFlag)
	if err != nil {
		return "", "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%q\x00%s\x00", src, p.flags, version)
	dir := CacheDir()
	path = filepath.Join(dir, name+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(path); err == nil {
		return path, "", nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", fmt.Errorf("creating cache dir: %w", err)
	}
	// The source lives in a stable directory so debug info points at a file
	// that still exists after the build.
	srcDir := path + ".d"
	if err := os.MkdirAll(srcDir, 0o755); err != nil {
		return "", "", fmt.Errorf("creating source dir: %w", err)
	}
	if err := writeAtomic(filepath.Join(srcDir, p.src), src); err != nil {
		return "", "", err
	}
	out := filepath.Join(srcDir, fmt.Sprintf(".%s.tmp%d", name, os.Getpid()))
	defer os.Remove(out)
	argv := compileArgv(p, comp.cmd, out)
	var log bytes.Buffer
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv:     argv,
		Dir:      srcDir,
		Env:      map[string]string{"GOWORK": "off", "GOFLAGS": "", "GO111MODULE": "on"},
		Timeout:  5 * time.Minute,
		Combined: &log,
	})
	if err != nil {
		return "", "", fmt.Errorf("building %s: %w", name, err)
	}
	if !res.Success() {
		if lib := missingLib(log.String()); lib != "" {
			return "", fmt.Sprintf("crashers: %s needs the %s runtime library, which is not installed (apt-get install %s)", name, lib, lib), nil
		}
		return "", "", fmt.Errorf("building %s: %s: %s", name, res, log.String())
	}
	if err := os.Rename(out, path); err != nil {
		return "", "", fmt.Errorf("installing %s: %w", name, err)
	}
	return path, "", nil
}

// missingLib recognises a linker failing for want of a sanitizer runtime.
func missingLib(log string) string {
	_, rest, ok := strings.Cut(log, "cannot find -l")
	if !ok {
		_, rest, ok = strings.Cut(log, "cannot find lib")
		if !ok {
			return ""
		}
	}
	lib, _, _ := strings.Cut(rest, ":")
	lib, _, _ = strings.Cut(lib, ".")
	return "lib" + strings.TrimPrefix(strings.TrimSpace(lib), "lib")
}

var (
	versionMu sync.Mutex
	versions  = map[string]string{}
)

func compilerVersion(cmd, flag string) (string, error) {
	versionMu.Lock()
	defer versionMu.Unlock()
	if v, ok := versions[cmd]; ok {
		return v, nil
	}
	var out bytes.Buffer
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{cmd, flag}, Stdout: &out, Timeout: time.Minute})
	if err != nil {
		return "", fmt.Errorf("asking %s for its version: %w", cmd, err)
	}
	if !res.Success() {
		return "", fmt.Errorf("asking %s for its version: %s", cmd, res)
	}
	versions[cmd] = out.String()
	return out.String(), nil
}

func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".src-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Core runs the named program in a temporary directory with core dumps on
// and returns the core it left and the program. It fails the test when no
// core is left there: kernel.core_pattern must be "core" (as
// scripts/install-deps.sh sets it).
func Core(t testing.TB, name string) (core, exe string) {
	t.Helper()
	exe = Build(t, name)
	dir := t.TempDir()
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{exe}, Dir: dir, CoreDumps: true, Timeout: time.Minute})
	cores, _ := filepath.Glob(filepath.Join(dir, "core*"))
	if err != nil || !res.CoreDumped || len(cores) != 1 {
		pattern, _ := os.ReadFile("/proc/sys/kernel/core_pattern")
		t.Fatalf("crashers: %s left no core in its directory (core_pattern %q): %+v %v", name, strings.TrimSpace(string(pattern)), res, err)
	}
	return cores[0], exe
}
