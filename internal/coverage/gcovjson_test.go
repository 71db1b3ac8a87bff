package coverage

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/triage-dev/triage/internal/spawn"
)

// decodeGcovReference reads gcov's JSON with encoding/json, as triage did
// before its own scanner: what the scanner must agree with.
func decodeGcovReference(t *testing.T, data []byte) *lineCounts {
	t.Helper()
	type gcovFile struct {
		Cwd   string `json:"current_working_directory"`
		Files []struct {
			File      string `json:"file"`
			Functions []struct {
				Name      string `json:"name"`
				Demangled string `json:"demangled_name"`
				StartLine int    `json:"start_line"`
				EndLine   int    `json:"end_line"`
			} `json:"functions"`
			Lines []struct {
				Line  int   `json:"line_number"`
				Count int64 `json:"count"`
			} `json:"lines"`
		} `json:"files"`
	}
	lc := newLineCounts()
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var g gcovFile
		if err := dec.Decode(&g); err == io.EOF {
			return lc
		} else if err != nil {
			t.Fatal(err)
		}
		for _, f := range g.Files {
			path := f.File
			if !filepath.IsAbs(path) {
				path = filepath.Join(g.Cwd, path)
			}
			path = filepath.Clean(path)
			for _, l := range f.Lines {
				if l.Line > 0 && l.Count >= 0 {
					lc.add(path, l.Line, l.Count)
				}
			}
			for _, fn := range f.Functions {
				lc.addFunc(path, Func{Name: cmp.Or(fn.Demangled, fn.Name), From: fn.StartLine, To: fn.EndLine})
			}
		}
	}
}

// realGcovJSON builds a small C++ program (two units, a header's inline
// function run from both, a line never run, a string with quotes) with
// --coverage, runs it, and returns gcov's JSON of its data files.
func realGcovJSON(t testing.TB) []byte {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"h.h":  "inline int twice(int x) {\n\treturn 2 * x;\n}\n",
		"a.cc": "#include \"h.h\"\nint other(int);\nstruct S { int v; int get() const { return v; } };\nint main(int argc, char **) {\n\tS s{argc};\n\tint n = 0;\n\tfor (int i = 0; i < 3; i++)\n\t\tn += twice(i) + s.get();\n\tn += other(0);\n\tif (argc > 5)\n\t\tn = other(n);\n\treturn n == 9 ? 0 : 1;\n}\n",
		"b.cc": "#include \"h.h\"\n#include <cstdio>\nint other(int n) {\n\tstd::printf(\"say \\\"%d\\\"\\n\", n);\n\treturn twice(n);\n}\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(argv ...string) []byte {
		var out, errb bytes.Buffer
		res, err := spawn.Run(context.Background(), spawn.Spec{Argv: argv, Dir: dir, Stdout: &out, Stderr: &errb})
		if err != nil || !res.Success() {
			t.Fatalf("%v: %v %v\n%s", argv, err, res, errb.String())
		}
		return out.Bytes()
	}
	run("g++", "--coverage", "-O0", "-o", "prog", "a.cc", "b.cc")
	run("./prog")
	return run("gcov", "--json-format", "--stdout", "prog-a.gcda", "prog-b.gcda")
}

// The scanner reads real gcov output to the same lines and functions as
// encoding/json did, whether the output comes whole or a byte at a time.
func TestGcovScannerAgreesWithDecoder(t *testing.T) {
	data := realGcovJSON(t)
	want := decodeGcovReference(t, data)
	if len(want.lines) < 3 || len(want.funcs) < 3 {
		t.Fatalf("the program's gcov output has too little to compare: %d files, %d with functions", len(want.lines), len(want.funcs))
	}
	for name, r := range map[string]io.Reader{"whole": bytes.NewReader(data), "byte at a time": iotest.OneByteReader(bytes.NewReader(data))} {
		got := newLineCounts()
		if err := readGcovJSON(r, got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got.asMap(), want.asMap()) || !reflect.DeepEqual(got.funcs, want.funcs) {
			t.Errorf("%s: the scanner read\n%v\n%v\nencoding/json read\n%v\n%v", name, got.asMap(), got.funcs, want.asMap(), want.funcs)
		}
	}
}

// Escapes, nesting, numbers written as floats and empty containers read as
// JSON says; broken JSON is an error.
func TestGcovScannerEdges(t *testing.T) {
	in := `  {"files": [{"file": "d\u0069r/q\"x.c", "functions": [], "lines": [{"branches": [{"count": 1, "x": [[], {}, "]}"]}], "line_number": 2, "count": 3e0, "f": null}, {"count": 0, "line_number": 4, "unexecuted_block": true}]}], "current_working_directory": "/p"}` + "\n\n" +
		`{"files": [], "current_working_directory": "/q"}` + "\n"
	lc := newLineCounts()
	if err := readGcovJSON(strings.NewReader(in), lc); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[int]int64{`/p/dir/q"x.c`: {2: 3, 4: 0}}
	if !reflect.DeepEqual(lc.asMap(), want) {
		t.Errorf("read %v, want %v", lc.asMap(), want)
	}
	for _, bad := range []string{
		`{"files": [`,
		`{"files": [{"lines": [{"count": 1.5, "line_number": 2}]}]}`,
		`{"files": [{"lines": [{"count": x}]}]}`,
		`{"files" [] }`,
		`{"files": [] } x`,
		`{"files": [{"lines": [{"count": 1 "line_number": 2}]}]}`,
		`[1, 2]`,
		`{"current_working_directory": "/p\`,
	} {
		if err := readGcovJSON(strings.NewReader(bad), newLineCounts()); err == nil {
			t.Errorf("%s: read without error", bad)
		}
	}
}

// Whatever the bytes, the scanner answers without panicking.
func FuzzReadGcovJSON(f *testing.F) {
	f.Add([]byte(`{"files": [{"file": "a.c", "lines": [{"line_number": 1, "count": 2}], "functions": [{"name": "f", "start_line": 1, "end_line": 2}]}], "current_working_directory": "/p"}`))
	f.Add([]byte(`{"a": [{"b": "\\"}], "files": [{"lines": [{}]}]}{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = readGcovJSON(bytes.NewReader(data), newLineCounts())
	})
}

// BenchmarkReadGcovJSON reads the real gcov output of the test program,
// repeated to a few hundred kilobytes, as a coverage run reads gcov's pipe.
func BenchmarkReadGcovJSON(b *testing.B) {
	one := realGcovJSON(b)
	data := bytes.Repeat(append(one, '\n'), max(1, (400<<10)/len(one)))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := readGcovJSON(bytes.NewReader(data), newLineCounts()); err != nil {
			b.Fatal(err)
		}
	}
}
