package main

import (
	"testing"
)

func TestLineWriterFindsTheAnswerAcrossWrites(t *testing.T) {
	w := &lineWriter{want: []byte(`"id":2,`), found: make(chan []byte, 1)}
	for _, chunk := range []string{`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id"`, `:2,"result":{"tools":[]}}`, "\n", `{"id":2,"again":true}` + "\n"} {
		if n, err := w.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write: %d %v", n, err)
		}
	}
	select {
	case line := <-w.found:
		if string(line) != `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}` {
			t.Errorf("line %q", line)
		}
	default:
		t.Fatal("the id 2 line was not found")
	}
	if len(w.found) != 0 {
		t.Error("a second line was sent")
	}
}

func TestTail(t *testing.T) {
	if got := tail("a\nb\nc\n", 2); got != "b\nc" {
		t.Errorf("tail: %q", got)
	}
	if got := tail("a", 5); got != "a" {
		t.Errorf("short tail: %q", got)
	}
}

func TestFixtureName(t *testing.T) {
	if got := fixtureName("../shared/fixtures/xcodebuild/ok.txt"); got != "xcodebuild/ok.txt" {
		t.Errorf("name: %q", got)
	}
	if got := fixtureName("internal/logfilter/testdata/ctest.log"); got != "internal/logfilter/testdata/ctest.log" {
		t.Errorf("corpus name: %q", got)
	}
}
