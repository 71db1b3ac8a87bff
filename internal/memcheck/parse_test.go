package memcheck

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// recordedDir is where testdata/record.sh compiled the programs: the
// project directory of the recorded frames.
const recordedDir = "/tmp/memcheck-record"

// want is what one recorded or real run must say of its first error.
type want struct {
	name, src, kind, words string
	access                 *Access
	at                     [2]string // mark and function of the access
	alloc, freed, origin   [2]string // mark and function; "" when none
	block                  *Block    // Address is not compared
}

var cases = []want{
	{name: "overflow_read", src: "overflow_read.c", kind: "InvalidRead", words: "heap buffer overflow: invalid read of size 8",
		access: &Access{"read", 8}, at: [2]string{"access", "grow"}, alloc: [2]string{"alloc", "make_slots"},
		block: &Block{Offset: 0, Relation: "after", Size: 256}},
	{name: "overflow_write", src: "overflow_write.c", kind: "InvalidWrite", words: "heap buffer overflow: invalid write of size 4",
		access: &Access{"write", 4}, at: [2]string{"access", "fill"}, alloc: [2]string{"alloc", "make_table"},
		block: &Block{Offset: 0, Relation: "after", Size: 256}},
	{name: "use_after_free", src: "use_after_free.c", kind: "InvalidRead", words: "use after free: invalid read of size 4",
		access: &Access{"read", 4}, at: [2]string{"access", "main"}, alloc: [2]string{"alloc", "push"}, freed: [2]string{"free", "drop"},
		block: &Block{Offset: 8, Relation: "inside", Size: 16, Freed: true}},
	{name: "double_free", src: "double_free.c", kind: "InvalidFree", words: "invalid free (double free)",
		at: [2]string{"access", "main"}, alloc: [2]string{"alloc", "main"}, freed: [2]string{"free", "release"},
		block: &Block{Offset: 0, Relation: "inside", Size: 32, Freed: true}},
	{name: "uninit", src: "uninit.c", kind: "UninitCondition", words: "uninitialised value decides a branch",
		at: [2]string{"access", "main"}, origin: [2]string{"alloc", "load"}},
	{name: "leak", src: "leak.c", kind: "Leak_DefinitelyLost", words: "definitely lost: 64 bytes in 1 block",
		at: [2]string{"alloc", "copy"}},
	{name: "mismatched", src: "mismatched.cpp", kind: "MismatchedFree",
		words: "mismatched free (released by another family than allocated it: malloc/free, new/delete, new[]/delete[])",
		at:    [2]string{"access", "main"}, alloc: [2]string{"alloc", "main"}, block: &Block{Offset: 0, Relation: "inside", Size: 32}},
	{name: "null_deref", src: "null_deref.c", kind: "InvalidWrite", words: "invalid write of size 4",
		access: &Access{"write", 4}, at: [2]string{"access", "set"}},
}

// check compares a report with what the case wants.
func (w want) check(t *testing.T, r *Report) {
	t.Helper()
	if r.Kind != w.kind || r.Words != w.words {
		t.Errorf("kind %q, words %q; want %q, %q", r.Kind, r.Words, w.kind, w.words)
	}
	if (r.Access == nil) != (w.access == nil) || r.Access != nil && *r.Access != *w.access {
		t.Errorf("access %+v, want %+v", r.Access, w.access)
	}
	if got, want := reportAt(r), site(t, w.src, w.at[0], w.at[1]); got != want {
		t.Errorf("named frame at %q, want %q\n%s", got, want, r.Detail())
	}
	for _, aux := range []struct {
		role Role
		mark [2]string
	}{{Allocated, w.alloc}, {Freed, w.freed}, {Origin, w.origin}} {
		want := ""
		if aux.mark[0] != "" {
			want = site(t, w.src, aux.mark[0], aux.mark[1])
		}
		if got := stackAt(r.AuxOf(aux.role)); got != want {
			t.Errorf("%s at %q, want %q\n%s", aux.role, got, want, r.Detail())
		}
	}
	if w.block == nil {
		if r.Block != nil {
			t.Errorf("block %+v, want none", r.Block)
		}
		return
	}
	if r.Block == nil || !strings.HasPrefix(r.Block.Address, "0x") {
		t.Fatalf("block %+v, want %+v", r.Block, w.block)
	}
	if b := *r.Block; b.Offset != w.block.Offset || b.Relation != w.block.Relation || b.Size != w.block.Size || b.Freed != w.block.Freed {
		t.Errorf("block %+v, want %+v", b, *w.block)
	}
}

// TestParseRecorded: each recorded run's one error is read as its kind,
// plain words, access, the file:line and function of the access, of the
// allocation and of the free, and the block's offset and size.
func TestParseRecorded(t *testing.T) {
	for _, w := range cases {
		t.Run(w.name, func(t *testing.T) {
			lg, err := Parse(readXML(t, w.name), recordedDir, true)
			if err != nil {
				t.Fatal(err)
			}
			if !lg.Whole || !lg.Finished || lg.Cut != "" || lg.Protocol != 4 || lg.Tool != "memcheck" {
				t.Errorf("log whole=%v finished=%v cut=%q protocol=%d tool=%q", lg.Whole, lg.Finished, lg.Cut, lg.Protocol, lg.Tool)
			}
			if len(lg.Errors) != 1 || lg.Seen != 1 {
				t.Fatalf("%d errors kept, %d seen; want 1", len(lg.Errors), lg.Seen)
			}
			w.check(t, &lg.Errors[0])
		})
	}
}

// TestParseClean: a run with no error is whole and finished, with none.
func TestParseClean(t *testing.T) {
	lg, err := Parse(readXML(t, "clean"), recordedDir, true)
	if err != nil || !lg.Whole || !lg.Finished || len(lg.Errors) != 0 || lg.Seen != 0 || lg.Signal != nil {
		t.Fatalf("Parse(clean) = %+v, %v", lg, err)
	}
}

// TestParseFatalSignal: the NULL write's program died of SIGSEGV: the
// signal, its event and address, and where, beside the error.
func TestParseFatalSignal(t *testing.T) {
	lg, err := Parse(readXML(t, "null_deref"), recordedDir, true)
	if err != nil {
		t.Fatal(err)
	}
	s := lg.Signal
	if s == nil || s.Name != "SIGSEGV" || s.Number != 11 || s.Address != "0x0" || s.Event != "Access not within mapped region" {
		t.Fatalf("signal %+v", s)
	}
	if got, want := signalSite(s), " at "+site(t, "null_deref.c", "access", "set"); got != want {
		t.Errorf("signal site %q, want %q", got, want)
	}
	if r := lg.Errors[0]; len(r.Notes) != 1 || r.Notes[0] != "Address 0x0 is not stack'd, malloc'd or (recently) free'd" {
		t.Errorf("notes %q", r.Notes)
	}
}

// TestSummaries: the one-line verdict of each recorded error, whole.
func TestSummaries(t *testing.T) {
	for name, want := range map[string]string{
		"overflow_read":  "memcheck: heap buffer overflow: invalid read of size 8 at overflow_read.c:20 in grow (heap block of 256 bytes allocated at overflow_read.c:14 in make_slots, 0 bytes past its end)",
		"overflow_write": "memcheck: heap buffer overflow: invalid write of size 4 at overflow_write.c:13 in fill (heap block of 256 bytes allocated at overflow_write.c:7 in make_table, 0 bytes past its end)",
		"use_after_free": "memcheck: use after free: invalid read of size 4 at use_after_free.c:28 in main (heap block of 16 bytes freed at use_after_free.c:21 in drop, allocated at use_after_free.c:13 in push, 8 bytes into it)",
		"double_free":    "memcheck: invalid free (double free) at double_free.c:16 in main (heap block of 32 bytes freed at double_free.c:8 in release, allocated at double_free.c:13 in main)",
		"uninit":         "memcheck: uninitialised value decides a branch at uninit.c:21 in main (created by a heap allocation at uninit.c:13 in load)",
		"leak":           "memcheck: definitely lost: 64 bytes in 1 block, allocated at leak.c:8 in copy",
		"null_deref":     "memcheck: invalid write of size 4 at null_deref.c:8 in set (address 0x0 is not stack'd, malloc'd or (recently) free'd)",
	} {
		lg, err := Parse(readXML(t, name), recordedDir, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := lg.Errors[0].Summary(); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// TestParseNotValgrind: documents that are not valgrind's XML of memcheck, helgrind or drd are
// refused with ErrNotValgrind, whatever they hold.
func TestParseNotValgrind(t *testing.T) {
	for _, doc := range []string{
		"",
		"not xml at all",
		"<?xml version=\"1.0\"?>\n<html><body/></html>",
		"<?xml version=\"1.0\"?><valgrindoutput><protocolversion>4</protocolversion><protocoltool>cachegrind</protocoltool></valgrindoutput>",
		"\x00\x01\x02",
	} {
		t.Run(fmt.Sprintf("%.30q", doc), func(t *testing.T) {
			if lg, err := Parse([]byte(doc), "", true); !errors.Is(err, ErrNotValgrind) {
				t.Errorf("Parse = %+v, %v; want ErrNotValgrind", lg, err)
			}
		})
	}
}

// TestParseCut: valgrind's XML cut anywhere (a killed valgrind, the read
// bound) is never whole, says where it ends, and the errors it holds are
// whole ones: the cut error is not half-read.
func TestParseCut(t *testing.T) {
	data := readXML(t, "use_after_free")
	errEnd := bytes.Index(data, []byte("</error>")) + len("</error>")
	start := bytes.Index(data, []byte("<valgrindoutput>")) + len("<valgrindoutput>")
	for n := start; n < len(data)-1; n += 7 {
		lg, err := Parse(data[:n], recordedDir, true)
		if err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
		if lg.Whole || lg.Cut == "" {
			t.Fatalf("cut at %d: whole=%v cut=%q", n, lg.Whole, lg.Cut)
		}
		if n < errEnd && len(lg.Errors) != 0 {
			t.Fatalf("cut at %d, inside the error: %d errors read", n, len(lg.Errors))
		}
		if n >= errEnd && (len(lg.Errors) != 1 || lg.Errors[0].AuxOf(Allocated) == nil) {
			t.Fatalf("cut at %d, after the error: %+v", n, lg.Errors)
		}
	}
}

// TestParseMalformed: a document that turns into garbage keeps what came
// before and says where it broke.
func TestParseMalformed(t *testing.T) {
	data := readXML(t, "overflow_read")
	i := bytes.Index(data, []byte("<status>\n  <state>FINISHED"))
	bad := append(append(append([]byte{}, data[:i]...), "<status></oops>"...), data[i:]...)
	lg, err := Parse(bad, recordedDir, true)
	if err != nil {
		t.Fatal(err)
	}
	if lg.Whole || lg.Finished || !strings.HasPrefix(lg.Cut, "malformed at byte") || len(lg.Errors) != 1 {
		t.Errorf("whole=%v finished=%v cut=%q errors=%d", lg.Whole, lg.Finished, lg.Cut, len(lg.Errors))
	}
}

// synthetic is a valgrind document with the given errors.
func synthetic(errs ...string) []byte {
	return []byte(`<?xml version="1.0"?>
<valgrindoutput><protocolversion>4</protocolversion><protocoltool>memcheck</protocoltool>
<status><state>RUNNING</state></status>` + strings.Join(errs, "\n") + `
<status><state>FINISHED</state></status></valgrindoutput>`)
}

func frameXML(fn, file string, line int) string {
	return fmt.Sprintf("<frame><ip>0x1</ip><obj>/p/prog</obj><fn>%s</fn><dir>/p</dir><file>%s</file><line>%d</line></frame>", fn, file, line)
}

// TestParseBounds: errors beyond MaxErrors are counted, not kept; frames
// beyond MaxFrames are dropped and counted; a long text is cut.
func TestParseBounds(t *testing.T) {
	var frames strings.Builder
	for i := range 100 {
		frames.WriteString(frameXML(fmt.Sprintf("f%d", i), "a.c", i+1))
	}
	long := strings.Repeat("x", 5000)
	one := "<error><unique>0x1</unique><tid>1</tid><kind>InvalidRead</kind><what>Invalid read of size 1 " + long +
		"</what><stack>" + frames.String() + "</stack></error>"
	errs := make([]string, 100)
	for i := range errs {
		errs[i] = one
	}
	lg, err := Parse(synthetic(errs...), "/p", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Errors) != MaxErrors || lg.Seen != 100 {
		t.Fatalf("%d kept, %d seen", len(lg.Errors), lg.Seen)
	}
	r := lg.Errors[0]
	if len(r.Stack) != MaxFrames || r.Dropped != 100-MaxFrames {
		t.Errorf("%d frames, %d dropped", len(r.Stack), r.Dropped)
	}
	if len(r.What) > maxText+len("…") {
		t.Errorf("what is %d bytes", len(r.What))
	}
	if d := r.Detail(); len(d) > maxDetail+len("…") || !strings.Contains(d, fmt.Sprintf("… %d more frames", 100-detailFrames)) {
		t.Errorf("detail (%d bytes):\n%s", len(d), d)
	}
}

// TestParseCounts: valgrind's error counts give how often each error was
// seen; the summary says so.
func TestParseCounts(t *testing.T) {
	doc := bytes.Replace(synthetic("<error><unique>0x7</unique><tid>1</tid><kind>UninitCondition</kind>"+
		"<what>Conditional jump or move depends on uninitialised value(s)</what><stack>"+frameXML("f", "a.c", 3)+"</stack></error>"),
		[]byte("</valgrindoutput>"), []byte("<errorcounts><pair><count>3</count><unique>0x7</unique></pair></errorcounts></valgrindoutput>"), 1)
	lg, err := Parse(doc, "/p", true)
	if err != nil {
		t.Fatal(err)
	}
	if r := lg.Errors[0]; r.Count != 3 || r.Summary() != "memcheck: uninitialised value decides a branch at a.c:3 in f, 3 times" {
		t.Errorf("count %d, summary %q", r.Count, r.Summary())
	}
}

// TestPick: the named frame is the project's first, never valgrind's own
// preloaded functions, a system library's frame or a header in /usr/.
func TestPick(t *testing.T) {
	frames := []Frame{
		{Object: "/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so", Function: "memcpy@@GLIBC_2.14"},
		{Object: "/usr/lib/x86_64-linux-gnu/libfoo.so.1", Function: "foo_copy"},
		{Object: "/p/prog", Function: "inlined", Dir: "/usr/include/x86_64-linux-gnu/bits", File: "string_fortified.h", Line: 29},
		{Object: "/usr/lib/x86_64-linux-gnu/libdep.so", Function: "dep", Dir: "/opt/dep/src", File: "dep.c", Line: 4},
		{Object: "/p/prog", Function: "grow", Dir: "/p/src", File: "list.c", Line: 12},
		{Object: "/p/prog", Function: "main", Dir: "/p/src", File: "main.c", Line: 3},
	}
	if i := Pick(frames, "/p"); i != 4 {
		t.Errorf("Pick = %d, want 4 (grow)", i)
	}
	if i := Pick(frames[:4], "/p"); i != 3 {
		t.Errorf("Pick without project frames = %d, want 3 (the dependency's)", i)
	}
	if i := Pick(frames[:2], "/p"); i != 0 {
		t.Errorf("Pick of valgrind's and the system's frames only = %d, want 0", i)
	}
	if i := Pick(nil, "/p"); i != -1 {
		t.Errorf("Pick(nil) = %d", i)
	}
}

// BenchmarkParse reads the use after free's XML (three stacks) and a
// document of MaxErrors errors of MaxFrames frames each plus as many
// skipped.
func BenchmarkParse(b *testing.B) {
	var frames strings.Builder
	for i := range MaxFrames {
		frames.WriteString(frameXML(fmt.Sprintf("f%d", i), "a.c", i+1))
	}
	one := "<error><unique>0x1</unique><tid>1</tid><kind>InvalidRead</kind><what>Invalid read of size 8</what><stack>" +
		frames.String() + "</stack><auxwhat>Address 0x10 is 0 bytes after a block of size 256 alloc'd</auxwhat><stack>" +
		frames.String() + "</stack></error>"
	errs := make([]string, 2*MaxErrors)
	for i := range errs {
		errs[i] = one
	}
	for _, doc := range []struct {
		name string
		data []byte
	}{{"use_after_free", readXML(b, "use_after_free")}, {"32errors", synthetic(errs...)}} {
		b.Run(doc.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc.data)))
			for b.Loop() {
				if _, err := Parse(doc.data, "/p", true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
