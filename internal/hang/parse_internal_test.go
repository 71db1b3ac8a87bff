package hang

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The patterns the hand-written line parsers replace: they say what the
// parsers must accept, and the fuzz test holds the parsers to them.
var (
	headerPattern = regexp.MustCompile(`^goroutine (\d+)\b[^\[]*\[([^\]]*)\]:\s*$`)
	filePattern   = regexp.MustCompile(`^\t(.+?):(\d+)(?: \+0x[0-9a-f]+)?(?: .*)?$`)
)

func FuzzGoroutineLineParsers(f *testing.F) {
	for _, s := range []string{
		"goroutine 18 gp=0xbf9940261e0 m=nil [chan receive, 2 minutes]:",
		"goroutine 1 [running]:", "goroutine 7 [select]:  ", "goroutine 12x [running]:",
		"goroutine  [running]:", "goroutine 3 [a]b]:", "goroutine 3 [sleep]: extra", "goroutine 0[]:\v", "goroutine 0 [x]:\f",
		"\t/tmp/x/hang_test.go:7 +0x25 fp=0x1 sp=0x2 pc=0x3", "\t/usr/lib/go/src/runtime/proc.go:435",
		"\tC:/x/y.go:12 +0x1", "\t:12", "\ta:b:12 +0x1", "\t/x.go:12a", "/x.go:12", "\t/x.go:",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ln string) {
		if strings.Contains(ln, "\n") {
			return // a line: the dump is split at newlines before parsing
		}
		id, state, ok := goroutineHeader(ln)
		if m := headerPattern.FindStringSubmatch(ln); (m != nil) != ok {
			t.Fatalf("header %q: parsed %v, pattern %v", ln, ok, m != nil)
		} else if ok {
			if want, _ := strconv.Atoi(m[1]); id != want || state != m[2] {
				t.Fatalf("header %q: got %d %q, want %s %q", ln, id, state, m[1], m[2])
			}
		}
		file, line, ok := goFileLine(ln)
		if m := filePattern.FindStringSubmatch(ln); (m != nil) != ok {
			t.Fatalf("file line %q: parsed %v, pattern %v", ln, ok, m != nil)
		} else if ok {
			if want, _ := strconv.Atoi(m[2]); file != m[1] || line != want {
				t.Fatalf("file line %q: got %q:%d, want %q:%s", ln, file, line, m[1], m[2])
			}
		}
	})
}

// A Tap keeps exactly what was written after Arm, across its chunks, up to
// its bound, and says when the bound cut it.
func TestTapKeepsWritesInOrderWithinItsBound(t *testing.T) {
	for _, bound := range []int{10, tapChunk + 3, 5 * tapChunk} {
		tap := NewTap(bound)
		tap.Write([]byte("before arming"))
		tap.Arm()
		var want []byte
		for i, size := range []int{1, tapChunk - 1, 7, 2*tapChunk + 5, 3} {
			p := bytes.Repeat([]byte{byte('a' + i)}, size)
			if n, err := tap.Write(p); n != size || err != nil {
				t.Fatalf("Write(%d bytes) = %d, %v", size, n, err)
			}
			want = append(want, p...)
		}
		cut := len(want) > bound
		want = want[:min(len(want), bound)]
		got, gotCut := tap.Bytes()
		if !bytes.Equal(got, want) || gotCut != cut {
			t.Errorf("bound %d: kept %d bytes (cut %v), want %d (cut %v)", bound, len(got), gotCut, len(want), cut)
		}
	}
}
