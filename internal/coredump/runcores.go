package coredump

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// GroupQuery selects the cores that the processes of one run left: a test
// runner (ctest, cargo, make) started in its own process group, whose
// children crash in directories of their own (CTest's working directory
// build/tests, a crate's directory, a recipe's cd).
type GroupQuery struct {
	// Since drops cores written before the run started.
	Since time.Time
	// Pgid is the run's process group (the pid of the process triage
	// started, which leads its group). Only cores of processes in that
	// group, or of that process, are the run's.
	Pgid int
	// Dirs are where relative core_pattern cores may land: the run's
	// working directory and the project's. Their subdirectories are looked
	// in too, to MaxDepth levels.
	Dirs []string
	// Exes are the programs the run names as its tests (absolute paths;
	// others are ignored): a core of one of them is the run's whatever its
	// process group, for a test a runner starts in a session of its own
	// and that a wrapper between forked. (A child the leader started in a
	// session of its own is the run's already: see ofRun.)
	Exes []string
	// MaxDepth bounds the descent into Dirs (0: DefaultGroupDepth).
	MaxDepth int
}

// DefaultGroupDepth is how deep FindGroup looks under each directory.
const DefaultGroupDepth = 5

// mtimeSlack is how far before Since a core's modification time may be and
// still count: the kernel stamps files from a coarse clock, which lags the
// clock Since is read from by up to a tick, so a test that crashes in the
// first milliseconds of a run leaves a core "older" than the run. The
// process group check keeps another run's core out.
const mtimeSlack = time.Second

// maxGroupEntries bounds the directory entries FindGroup reads, whatever
// the tree's size.
const maxGroupEntries = 50000

// GroupSearch is where FindGroup looks for a run's cores under a file
// core_pattern, for a search that runs elsewhere (on a host): the
// directories, how deep, and the expression a core's file name matches.
type GroupSearch struct {
	Dirs   []string
	Depth  int
	NameRE string
	// Skip are directory names never entered (version control, build
	// systems' own trees).
	Skip []string
}

// SearchFor is the search FindGroup makes for q under core_pattern
// pattern; an error for a piped pattern (its handler keeps the cores).
func SearchFor(pattern string, q GroupQuery) (GroupSearch, error) {
	pat := parseCorePattern(pattern)
	switch {
	case pat.pipe:
		return GroupSearch{}, &NoCoreError{Reason: fmt.Sprintf("core_pattern pipes cores to %s (%q)", pat.handlerName(), pat.raw)}
	case pat.raw == "":
		return GroupSearch{}, &NoCoreError{Reason: "core_pattern is empty: no core files are written"}
	}
	var dirs []string
	for _, d := range q.Dirs {
		dirs = append(dirs, filepath.Clean(d))
	}
	s := GroupSearch{Dirs: uniq(dirs), Depth: q.MaxDepth, NameRE: patternNameRE(filepath.Base(pat.raw))}
	if s.Depth <= 0 {
		s.Depth = DefaultGroupDepth
	}
	if filepath.IsAbs(pat.raw) {
		s.Dirs, s.Depth = []string{filepath.Dir(pat.raw)}, 1
	}
	for name := range skipDirs {
		s.Skip = append(s.Skip, name)
	}
	sort.Strings(s.Skip)
	return s, nil
}

// FindGroup finds the core files of q's run written since q.Since, newest
// first: its process group's, its leader's children's in a group of their
// own, and its test programs' (ofRun). Cores that predate the run, or that
// are another process's (a core the user kept in the tree), are never
// returned. Only core_pattern file patterns are searched; piped handlers
// keep cores elsewhere (see List).
func FindGroup(ctx context.Context, q GroupQuery) ([]Artifact, error) {
	var f Finder
	return f.FindGroup(ctx, q)
}

// FindGroup is the Finder form of FindGroup.
func (f *Finder) FindGroup(ctx context.Context, q GroupQuery) ([]Artifact, error) {
	if f.goos() != "linux" || q.Pgid <= 0 {
		return nil, nil
	}
	raw, err := os.ReadFile(filepath.Join(f.procSys(), "kernel", "core_pattern"))
	if err != nil {
		return nil, fmt.Errorf("reading core_pattern: %w", err)
	}
	pat := parseCorePattern(string(raw))
	if pat.pipe || pat.raw == "" {
		return nil, nil
	}
	match := patternGlob(filepath.Base(pat.raw))
	depth := q.MaxDepth
	if depth <= 0 {
		depth = DefaultGroupDepth
	}
	dirs := q.Dirs
	if filepath.IsAbs(pat.raw) {
		dirs, depth = []string{filepath.Dir(pat.raw)}, 1
	}
	var out []Artifact
	seen := map[string]bool{}
	budget := maxGroupEntries
	for _, d := range uniq(dirs) {
		walkCores(ctx, d, depth, &budget, func(path string, info fs.FileInfo) {
			if seen[path] || !match(filepath.Base(path)) || (!q.Since.IsZero() && info.ModTime().Before(q.Since.Add(-mtimeSlack))) {
				return
			}
			seen[path] = true
			ci, err := OpenCore(path)
			if err != nil || !ci.ofRun(q.Pgid, q.Exes) {
				return
			}
			out = append(out, Artifact{Kind: "core", Path: path, Size: info.Size(), ModTime: info.ModTime(), Note: ci.Summary()})
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ModTime.After(out[j].ModTime) })
	return out, ctx.Err()
}

// ofRun reports whether the core's process was one of the run that pgid
// leads (NT_PRPSINFO's ids): the leader, a process of its group, or a
// child the leader started in a session or group of its own (meson runs
// each test under os.setsid, so the test's group is its own pid and its
// parent is meson; prove and some make check harnesses do likewise); or
// whether it ran one of exes, the run's test programs, wherever it was
// in the process tree (a test a wrapper forked in the test's session).
// An exe that is not an absolute path is not compared: a base name alone
// could be any program's.
func (c *CoreInfo) ofRun(pgid int, exes []string) bool {
	if pgid > 0 && (c.Pid == pgid || c.Pgrp == pgid || c.PPid == pgid) {
		return true
	}
	for _, exe := range exes {
		if filepath.IsAbs(exe) && c.ranExe(exe) {
			return true
		}
	}
	return false
}

// skipDirs are not descended into: version control, dependency and build
// caches that hold many files and never a test's working directory.
var skipDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true, "CMakeFiles": true, ".deps": true, ".libs": true}

// walkCores calls fn for each regular file under dir, to depth levels,
// reading at most *budget directory entries in all. Cargo's target
// directory holds build products only, and is skipped below its first level.
func walkCores(ctx context.Context, dir string, depth int, budget *int, fn func(string, fs.FileInfo)) {
	if depth <= 0 || *budget <= 0 || ctx.Err() != nil {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	*budget -= len(entries)
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.Type().IsRegular():
			if info, err := e.Info(); err == nil {
				fn(filepath.Join(dir, name), info)
			}
		case e.IsDir() && !skipDirs[name] && !(name == "target" && fileExists(filepath.Join(dir, "Cargo.toml"))):
			walkCores(ctx, filepath.Join(dir, name), depth-1, budget, fn)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Keep moves a core that a run caused out of the user's tree into dir
// (triage's state directory for that run), and returns its new path. The
// file keeps its name, with the pid added when the name lacks one
// ("core" → "core.4242"); a name taken gets a further suffix. A move across
// file systems copies, then removes the original.
func Keep(path, dir string, pid int) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("keeping core %s: %w", path, err)
	}
	name := filepath.Base(path)
	if pid > 0 && !strings.Contains(name, strconv.Itoa(pid)) {
		name += "." + strconv.Itoa(pid)
	}
	dst := filepath.Join(dir, name)
	for i := 1; fileExists(dst); i++ {
		dst = filepath.Join(dir, name+"-"+strconv.Itoa(i))
	}
	err := os.Rename(path, dst)
	if err == nil {
		return dst, nil
	}
	if !errors.Is(err, syscall.EXDEV) {
		return "", fmt.Errorf("keeping core %s: %w", path, err)
	}
	if err := copyFile(path, dst); err != nil {
		os.Remove(dst)
		return "", fmt.Errorf("keeping core %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil {
		return dst, fmt.Errorf("keeping core %s: copied to %s, but the original stays: %w", path, dst, err)
	}
	return dst, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
