package toolchain

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// marker is a file whose presence at a project's root names its toolchain.
type marker struct {
	file string
	tc   Toolchain
	// root, when set, tells a project's root file from one of the same
	// name in a subdirectory of the project (a Meson subdir's meson.build).
	root func(fsys Files, path string) bool
}

// in reports whether dir holds m's file, as a project's root.
func (m marker) in(fsys Files, dir string) bool {
	p := filepath.Join(dir, m.file)
	return isFile(fsys, p) && (m.root == nil || m.root(fsys, p))
}

// markers in Detect's order of preference. A CMake project with a Makefile
// in its root is a CMake project built in-source; a Go, Cargo or SwiftPM
// project with a Makefile is driven well by its own tool, which knows how to
// select tests, and so is a Meson project with a Makefile (a wrapper of
// meson's commands, at most). A project with both a CMakeLists.txt and a
// meson.build stays CMake, as it was before triage knew Meson: such
// projects mostly build with CMake and keep the other file so that others
// can use them as a subproject (toolchain: meson picks Meson). An autotools
// project (configure.ac) comes after those, for the same reason, and before
// a Makefile: a tree configured in-source has one, and is autotools' to
// build (autotools.go); before Package.swift too, which C libraries built
// with autotools carry for SwiftPM's users.
var markers = []marker{
	{file: "go.mod", tc: Go},
	{file: "Cargo.toml", tc: Cargo},
	{file: "CMakeLists.txt", tc: CMake},
	{file: "meson.build", tc: Meson, root: mesonRoot},
	{file: "configure.ac", tc: Autotools},
	{file: "configure.in", tc: Autotools},
	{file: "Package.swift", tc: Swift},
	{file: "GNUmakefile", tc: Make},
	{file: "makefile", tc: Make},
	{file: "Makefile", tc: Make},
}

// Xcode bundle suffixes: directories that Detect reports as *XcodeProjectError.
const (
	xcworkspaceExt = ".xcworkspace"
	xcodeprojExt   = ".xcodeproj"
)

// NotAProjectError reports a directory holding no project Detect recognises.
type NotAProjectError struct {
	Dir       string
	LookedFor []string // marker files and bundle patterns looked for
	// Nearest is the closest ancestor of Dir that holds a project, and
	// NearestMarker its marker file; both empty when there is none.
	Nearest, NearestMarker string
}

func (e *NotAProjectError) Error() string {
	msg := fmt.Sprintf("no project found in %s: looked for %s", e.Dir, strings.Join(e.LookedFor, ", "))
	if e.Nearest != "" {
		msg += fmt.Sprintf(" (the nearest project is %s, which has %s)", e.Nearest, e.NearestMarker)
	}
	return msg
}

// XcodeProjectError reports a directory that holds an Xcode workspace or
// project and nothing else Detect knows: such projects go to the xcode
// workflow. It wraps ErrXcode.
type XcodeProjectError struct {
	Dir  string
	Path string // the .xcworkspace if there is one, else the .xcodeproj
}

func (e *XcodeProjectError) Error() string {
	return fmt.Sprintf("%s is an Xcode project (%s): %v", e.Dir, filepath.Base(e.Path), ErrXcode)
}

func (e *XcodeProjectError) Unwrap() error { return ErrXcode }

// Detect names the toolchain of the project rooted at dir. When several
// markers are present, the first in Known's order wins; DetectAll lists them
// all. A directory with none returns *NotAProjectError, one with only an
// Xcode project or workspace *XcodeProjectError.
func Detect(dir string) (Toolchain, error) { return detectIn(localFiles{}, dir) }

func detectIn(fsys Files, dir string) (Toolchain, error) {
	all, err := detectAll(fsys, dir)
	if err != nil {
		return "", err
	}
	return all[0], nil
}

// DetectAll lists every toolchain whose marker is in dir, in order of
// preference, or returns Detect's errors when there is none.
func DetectAll(dir string) ([]Toolchain, error) { return detectAll(localFiles{}, dir) }

func detectAll(fsys Files, dir string) ([]Toolchain, error) {
	abs, err := projectDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var found []Toolchain
	for _, m := range markers {
		if !slices.Contains(found, m.tc) && m.in(fsys, abs) {
			found = append(found, m.tc)
		}
	}
	if len(found) > 0 {
		return found, nil
	}
	if xc, err := xcodeBundle(fsys, abs); err != nil {
		return nil, err
	} else if xc != "" {
		return nil, &XcodeProjectError{Dir: abs, Path: xc}
	}
	e := &NotAProjectError{Dir: abs, LookedFor: lookedFor()}
	e.Nearest, e.NearestMarker = nearestProject(fsys, abs)
	return nil, e
}

// projectDir returns dir made absolute, checking that it is a directory.
func projectDir(fsys Files, dir string) (string, error) {
	abs, err := absIn(fsys, dir)
	if err != nil {
		return "", fmt.Errorf("detecting toolchain: %w", err)
	}
	fi, err := fsys.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("detecting toolchain: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("detecting toolchain: %s is not a directory", abs)
	}
	return abs, nil
}

func isFile(fsys Files, path string) bool {
	fi, err := fsys.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// xcodeBundle returns the Xcode workspace in dir, else its project, else "".
// With several of a kind the first by name is returned, for a stable answer.
func xcodeBundle(fsys Files, dir string) (string, error) {
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("detecting toolchain: %w", err)
	}
	var workspaces, projects []string
	for _, e := range entries {
		if !isDirEntry(fsys, dir, e) {
			continue
		}
		switch filepath.Ext(e.Name()) {
		case xcworkspaceExt:
			workspaces = append(workspaces, e.Name())
		case xcodeprojExt:
			projects = append(projects, e.Name())
		}
	}
	sort.Strings(workspaces)
	sort.Strings(projects)
	switch {
	case len(workspaces) > 0:
		return filepath.Join(dir, workspaces[0]), nil
	case len(projects) > 0:
		return filepath.Join(dir, projects[0]), nil
	}
	return "", nil
}

// isDirEntry reports whether e is a directory, following a symlink.
func isDirEntry(fsys Files, dir string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	fi, err := fsys.Stat(filepath.Join(dir, e.Name()))
	return err == nil && fi.IsDir()
}

func lookedFor() []string {
	out := make([]string, 0, len(markers)+2)
	for _, m := range markers {
		out = append(out, m.file)
	}
	return append(out, "*"+xcodeprojExt, "*"+xcworkspaceExt)
}

// maxAncestors bounds the walk up from a directory that is not a project.
const maxAncestors = 64

// nearestProject returns the closest ancestor of dir holding a marker, and
// that marker: the usual mistake is a subdirectory of the project.
func nearestProject(fsys Files, dir string) (string, string) {
	for i, d := 0, filepath.Dir(dir); i < maxAncestors; i, d = i+1, filepath.Dir(d) {
		for _, m := range markers {
			if m.in(fsys, d) {
				return d, m.file
			}
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	return "", ""
}
