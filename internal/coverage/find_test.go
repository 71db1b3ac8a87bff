package coverage

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

// findReport is a report of n files whose names sort by bytes, not by
// their JSON (<, & and " are escaped there), some of them with lines
// longer than the binary search's reads.
func findReport(n int) *Report {
	r := &Report{Tool: ToolGcov, ProjectDir: "/p"}
	names := []string{"a<b", "a&b", `a"b`, "ä", "z", "a/b"}
	for i := range n {
		f := File{Path: fmt.Sprintf("%s/%05d.c", names[i%len(names)], i), Kind: Own, Lines: 2, Covered: 1}
		ranges := 1
		if i%97 == 0 {
			ranges = 5000 // a line of tens of KiB
		}
		for k := range ranges {
			f.Uncovered = append(f.Uncovered, Range{2*k + 1, 2*k + 1})
		}
		r.Files = append(r.Files, f)
	}
	r.Files = append(r.Files[n/2:], r.Files[:n/2]...) // Write sorts them
	r.count()
	return r
}

// Every file of a stored report is found by the binary search as by
// reading it through, and a path it lacks is not.
func TestFindFileMatchesReadFile(t *testing.T) {
	var buf bytes.Buffer
	if err := findReport(3000).Write(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	r := bytes.NewReader(data)
	paths := []string{"", "a", "zz", "a<b/00000.c!", "/p/ä/00003.c"}
	for i := range 3000 {
		paths = append(paths, fmt.Sprintf("%s/%05d.c", []string{"a<b", "a&b", `a"b`, "ä", "z", "a/b"}[i%6], i))
	}
	for _, p := range paths {
		got, _, err := FindFile(r, int64(len(data)), p)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		want, _, err := ReadFile(bytes.NewReader(data), p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: found %+v, read through %+v", p, got, want)
		}
	}
	if f, _, _ := FindFile(r, int64(len(data)), "/p/ä/00003.c"); f == nil || f.Path != "ä/00003.c" {
		t.Errorf("an absolute path in the project: %+v", f)
	}
}
