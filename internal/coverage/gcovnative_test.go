package coverage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// TestNativeGcovMatchesGcov: gcc's notes and data read here give the
// lines, whether each ran, and the functions that gcov's JSON gives, for
// code built without and with optimisation and run twice (the counts add
// up), in two objects that include one header.
func TestNativeGcovMatchesGcov(t *testing.T) {
	nativeprojects.Need(t, "gcc", "gcov")
	for _, opt := range []string{"-O0", "-O2"} {
		t.Run(opt, func(t *testing.T) {
			dir := buildGcovProgram(t, "gcc", opt, "a.c", "b.c")
			runIn(t, dir, "./prog")
			runIn(t, dir, "./prog", "x", "y", "z") // exits 2 through exit()
			data := dataUnder(t, dir)
			native := newLineCounts()
			if err := readGcovNative(t.Context(), data, native); err != nil {
				t.Fatal(err)
			}
			viaGcov := newLineCounts()
			if err := gcovBatchInto(t.Context(), viaGcov, data); err != nil {
				t.Fatal(err)
			}
			got, want := lineCountsText(native), lineCountsText(viaGcov)
			if got != want {
				t.Fatalf("read here:\n%s\ngcov:\n%s", got, want)
			}
			if !strings.Contains(got, "f2_a") || !strings.Contains(got, "h.h:") {
				t.Fatalf("the group function or the header is missing:\n%s", got)
			}
		})
	}
}

// TestGcovReadsWhatIsNotReadHere: C++ names are gcov's to demangle, so a
// C++ object's data goes to gcov, and the report names the template's
// instances as gcov does.
func TestGcovReadsWhatIsNotReadHere(t *testing.T) {
	nativeprojects.Need(t, "g++", "gcov")
	dir := buildGcovProgram(t, "g++", "-O0", "c.cc")
	runIn(t, dir, "./prog")
	data := dataUnder(t, dir)
	if err := readGcovNative(t.Context(), data, newLineCounts()); !errors.Is(err, errGcovNative) {
		t.Fatalf("read here: %v, want errGcovNative", err)
	}
	rep, err := RunGcov(t.Context(), data, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range rep.Files {
		for _, fn := range f.Funcs {
			names = append(names, fn.Name)
		}
	}
	if !slices.Contains(names, "int twice<int>(int)") {
		t.Fatalf("functions %q, want gcov's demangled int twice<int>(int)", names)
	}
}

// TestGcovFilesCutShortOrForeign: notes cut anywhere, an older gcc's
// files and data of another compilation are refused as not read here
// (gcov is run instead), never misread and never a panic.
func TestGcovFilesCutShortOrForeign(t *testing.T) {
	nativeprojects.Need(t, "gcc")
	dir := buildGcovProgram(t, "gcc", "-O0", "b.c")
	notes, err := os.ReadFile(filepath.Join(dir, "b.gcno"))
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(notes) {
		if _, err := parseGcovNotes(notes[:n]); err != nil && !errors.Is(err, errGcovNative) {
			t.Fatalf("notes cut at %d: %v", n, err)
		}
	}
	old := slices.Clone(notes)
	binary.LittleEndian.PutUint32(old[4:], 'A'<<24|'9'<<16|'3'<<8|'*') // gcc 9.3
	if _, err := parseGcovNotes(old); !errors.Is(err, errGcovNative) || !strings.Contains(err.Error(), "gcc 9.3") {
		t.Fatalf("gcc 9.3's notes: %v", err)
	}
	n, err := parseGcovNotes(notes)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 16)
	binary.LittleEndian.PutUint32(data, gcovMagicData)
	copy(data[4:8], notes[4:8])
	binary.LittleEndian.PutUint32(data[8:], n.stamp+1)
	if err := n.readData(data); !errors.Is(err, errGcovNative) || !strings.Contains(err.Error(), "stamp") {
		t.Fatalf("data of another compilation: %v", err)
	}
}

// FuzzGcovFiles: whatever the notes and data hold, reading them ends in
// lines, or in errGcovNative (gcov reads them then), never in a panic or
// another error.
func FuzzGcovFiles(f *testing.F) {
	nativeprojects.Need(f, "gcc")
	dir := buildGcovProgram(f, "gcc", "-O0", "a.c", "b.c")
	runIn(f, dir, "./prog")
	for _, o := range []string{"a", "b"} {
		notes, err1 := os.ReadFile(filepath.Join(dir, o+".gcno"))
		data, err2 := os.ReadFile(filepath.Join(dir, o+".gcda"))
		if err := errors.Join(err1, err2); err != nil {
			f.Fatal(err)
		}
		f.Add(notes, data)
	}
	f.Fuzz(func(t *testing.T, notes, data []byte) {
		n, err := parseGcovNotes(notes)
		if err == nil {
			err = n.readData(data)
		}
		if err == nil {
			err = n.addTo(newLineCounts())
		}
		if err != nil && !errors.Is(err, errGcovNative) {
			t.Fatalf("%v, want errGcovNative", err)
		}
	})
}

// buildGcovProgram compiles sources of testdata/gcovnative with
// --coverage into prog, in a directory of its own.
func buildGcovProgram(t testing.TB, compiler, opt string, sources ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"a.c", "b.c", "c.cc", "h.h"} {
		b, err := os.ReadFile(filepath.Join("testdata", "gcovnative", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var objects []string
	for _, s := range sources {
		o := strings.TrimSuffix(s, filepath.Ext(s)) + ".o"
		runIn(t, dir, compiler, "--coverage", opt, "-c", s, "-o", o)
		objects = append(objects, o)
	}
	if len(sources) > 1 || sources[0] != "b.c" { // b.c has no main
		runIn(t, dir, compiler, append([]string{"--coverage", "-o", "prog"}, objects...)...)
	}
	return dir
}

// runIn runs a command in dir; a program's own exit status is not a
// failure, a command that cannot run is.
func runIn(t testing.TB, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && name == "./prog") {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func dataUnder(t *testing.T, dir string) []string {
	t.Helper()
	data, err := filepath.Glob(filepath.Join(dir, "*.gcda"))
	if err != nil || len(data) == 0 {
		t.Fatalf("no data files in %s (%v)", dir, err)
	}
	return data
}

// lineCountsText lists every file's lines, each marked + (ran) or -, and
// its functions.
func lineCountsText(lc *lineCounts) string {
	var b strings.Builder
	for _, path := range slices.Sorted(maps.Keys(lc.lines)) {
		fmt.Fprintf(&b, "%s:", filepath.Base(path))
		lc.lines[path].each(func(line int, count int64) {
			mark := "-"
			if count > 0 {
				mark = "+"
			}
			fmt.Fprintf(&b, " %d%s", line, mark)
		})
		var funcs []string
		for fn := range lc.funcs[path] {
			funcs = append(funcs, fmt.Sprintf("%s %d-%d", fn.Name, fn.From, fn.To))
		}
		slices.Sort(funcs)
		fmt.Fprintf(&b, "\n  functions: %s\n", strings.Join(funcs, ", "))
	}
	return b.String()
}
