package toolchain

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// tree creates files (names ending in "/" are directories) under a temp dir.
func tree(t *testing.T, paths ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, p := range paths {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  []Toolchain
	}{
		{"go", []string{"go.mod", "main.go"}, []Toolchain{Go}},
		{"cargo", []string{"Cargo.toml", "src/lib.rs"}, []Toolchain{Cargo}},
		{"cmake", []string{"CMakeLists.txt"}, []Toolchain{CMake}},
		{"swift", []string{"Package.swift"}, []Toolchain{Swift}},
		{"Makefile", []string{"Makefile"}, []Toolchain{Make}},
		{"makefile", []string{"makefile"}, []Toolchain{Make}},
		{"GNUmakefile", []string{"GNUmakefile"}, []Toolchain{Make}},
		{"go with a Makefile", []string{"Makefile", "go.mod"}, []Toolchain{Go, Make}},
		{"in-source cmake build", []string{"CMakeLists.txt", "Makefile", "makefile"}, []Toolchain{CMake, Make}},
		{"swift package beside an xcodeproj", []string{"Package.swift", "App.xcodeproj/"}, []Toolchain{Swift}},
		{"rust and go", []string{"Cargo.toml", "go.mod"}, []Toolchain{Go, Cargo}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tree(t, tt.files...)
			got, err := DetectAll(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DetectAll = %v, want %v", got, tt.want)
			}
			first, err := Detect(dir)
			if err != nil || first != tt.want[0] {
				t.Errorf("Detect = %q, %v; want %q", first, err, tt.want[0])
			}
		})
	}
}

func TestDetectXcode(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  string
	}{
		{"project", []string{"App.xcodeproj/project.pbxproj"}, "App.xcodeproj"},
		{"workspace preferred", []string{"App.xcodeproj/", "App.xcworkspace/", "Pods/"}, "App.xcworkspace"},
		{"first by name", []string{"Zed.xcodeproj/", "Alpha.xcodeproj/"}, "Alpha.xcodeproj"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tree(t, tt.files...)
			_, err := Detect(dir)
			var xe *XcodeProjectError
			if !errors.As(err, &xe) {
				t.Fatalf("Detect error = %v, want *XcodeProjectError", err)
			}
			if xe.Path != filepath.Join(dir, tt.want) {
				t.Errorf("Path = %q, want %s", xe.Path, tt.want)
			}
			if !errors.Is(err, ErrXcode) || !strings.Contains(err.Error(), "xcode_build") {
				t.Errorf("error %q should wrap ErrXcode and name the xcode tools", err)
			}
		})
	}
}

func TestDetectNotAProject(t *testing.T) {
	tests := []struct {
		name        string
		files       []string
		dir         string // relative to the tree
		nearest     string // relative to the tree, "" for none
		nearestFile string
	}{
		{"empty", nil, ".", "", ""},
		{"marker names that are directories", []string{"go.mod/", "Makefile/"}, ".", "", ""},
		{"xcodeproj that is a file", []string{"App.xcodeproj"}, ".", "", ""},
		{"subdirectory of a module", []string{"go.mod", "internal/x/"}, "internal/x", ".", "go.mod"},
		{"nearest wins", []string{"Makefile", "lib/Cargo.toml", "lib/src/"}, "lib/src", "lib", "Cargo.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, tt.files...)
			dir := filepath.Join(root, tt.dir)
			_, err := Detect(dir)
			var ne *NotAProjectError
			if !errors.As(err, &ne) {
				t.Fatalf("Detect error = %v, want *NotAProjectError", err)
			}
			if ne.Dir != dir {
				t.Errorf("Dir = %q, want %q", ne.Dir, dir)
			}
			for _, want := range []string{"go.mod", "Cargo.toml", "CMakeLists.txt", "meson.build", "configure.ac", "configure.in", "Package.swift", "Makefile", "*.xcodeproj", "*.xcworkspace"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not list %s", err, want)
				}
			}
			wantNearest := ""
			if tt.nearest != "" {
				wantNearest = filepath.Join(root, tt.nearest)
			}
			// The temp dir's own ancestors hold no project on a sane machine;
			// only compare when the tree should provide the answer.
			if tt.nearest != "" && (ne.Nearest != wantNearest || ne.NearestMarker != tt.nearestFile) {
				t.Errorf("Nearest = %q (%s), want %q (%s)", ne.Nearest, ne.NearestMarker, wantNearest, tt.nearestFile)
			}
			if tt.nearest != "" && !strings.Contains(err.Error(), wantNearest) {
				t.Errorf("error %q does not name the nearest project", err)
			}
		})
	}
}

func TestDetectBadDirectory(t *testing.T) {
	root := tree(t, "file.txt")
	tests := []struct{ name, dir, msg string }{
		{"empty", "", "no project directory"},
		{"missing", filepath.Join(root, "nope"), "no such file"},
		{"a file", filepath.Join(root, "file.txt"), "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Detect(tt.dir)
			var ne *NotAProjectError
			if err == nil || errors.As(err, &ne) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Detect(%q) error = %v, want a plain error saying %q", tt.dir, err, tt.msg)
			}
		})
	}
}

func TestDetectFollowsSymlinkedXcodeBundle(t *testing.T) {
	root := tree(t, "real/App.xcworkspace/", "proj/")
	if err := os.Symlink(filepath.Join(root, "real/App.xcworkspace"), filepath.Join(root, "proj/App.xcworkspace")); err != nil {
		t.Skip("symlinks unsupported here:", err)
	}
	var xe *XcodeProjectError
	if _, err := Detect(filepath.Join(root, "proj")); !errors.As(err, &xe) {
		t.Errorf("Detect error = %v, want *XcodeProjectError", err)
	}
}
