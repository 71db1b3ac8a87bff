package debugger

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseLogMessage(t *testing.T) {
	got, err := ParseLogMessage("a={a} m={ m[\"k\"] } s={ s.f{x} }!")
	want := []LogPart{{Text: "a="}, {Text: "a", Expr: true}, {Text: " m="}, {Text: `m["k"]`, Expr: true},
		{Text: " s="}, {Text: "s.f{x}", Expr: true}, {Text: "!"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("parts = %+v, %v", got, err)
	}
	for msg, why := range map[string]string{"a={a": "without its }", "a}": "without its {", "{ }": "empty {}"} {
		if _, err := ParseLogMessage(msg); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: %v, want %q", msg, err, why)
		}
	}
	spec := BreakpointSpec{Watch: "x", LogMessage: "x"}
	if err := spec.Validate(); err == nil || !strings.Contains(err.Error(), "code breakpoints") {
		t.Errorf("a logging watch: %v", err)
	}
}

// TestLogBook: each read returns the hits since the one before, whole
// lines only, the newest few in full; past its size a hit is dropped and
// the read says the log is full.
func TestLogBook(t *testing.T) {
	dir := t.TempDir()
	book := NewLogBook(dir)
	if n, err := book.TakeNew(); err != nil || n.New != 0 {
		t.Fatalf("empty book: %+v, %v", n, err)
	}
	for i := range 5 {
		if err := book.Append(LogHit{At: time.Now(), Breakpoint: 1, Message: strings.Repeat("x", i)}); err != nil {
			t.Fatal(err)
		}
	}
	// A writer (lldb's Python) in the middle of a line: not read yet.
	f, _ := os.OpenFile(filepath.Join(dir, LogBookFile), os.O_WRONLY|os.O_APPEND, 0)
	_, _ = f.WriteString(`{"at":"2026-01-01T00:00:00Z","bp":2,`)
	n, err := book.TakeNew()
	if err != nil || n.New != 5 || len(n.Last) != lastHits || n.Last[2].Message != "xxxx" || n.Full {
		t.Fatalf("first read: %+v, %v", n, err)
	}
	_, _ = f.WriteString(`"message":"late"}` + "\n")
	f.Close()
	if n, _ := book.TakeNew(); n.New != 1 || n.Last[0].Breakpoint != 2 || n.Last[0].Message != "late" {
		t.Errorf("second read: %+v", n)
	}
	big := LogHit{Breakpoint: 1, Message: strings.Repeat("y", 64<<10)}
	for range LogBookMaxBytes/len(big.Message) + 2 {
		_ = book.Append(big)
	}
	if n, _ := book.TakeNew(); !n.Full || n.New >= LogBookMaxBytes/len(big.Message)+2 {
		t.Errorf("a full book: %d new, full %v", n.New, n.Full)
	}
	if data, err := book.Contents(); err != nil || len(data) > LogBookMaxBytes {
		t.Errorf("contents: %d bytes, %v", len(data), err)
	}
}
