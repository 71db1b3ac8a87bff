package txtar

import (
	"reflect"
	"testing"
)

func TestParseFormat(t *testing.T) {
	in := "a comment\n\n-- 1 run.json --\n{\"program\": \"true\"}\n-- empty --\n-- last --\nno newline"
	a := Parse([]byte(in))
	want := &Archive{Comment: "a comment\n\n", Files: []File{
		{"1 run.json", "{\"program\": \"true\"}\n"},
		{"empty", ""},
		{"last", "no newline\n"},
	}}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("Parse = %#v\nwant %#v", a, want)
	}
	if got := string(Format(a)); got != in+"\n" {
		t.Errorf("Format = %q", got)
	}
	if b := Parse(Format(a)); !reflect.DeepEqual(a, b) {
		t.Errorf("round trip: %#v", b)
	}
	if d, ok := a.Get("1 run.json"); !ok || d != "{\"program\": \"true\"}\n" {
		t.Errorf("Get = %q %v", d, ok)
	}
}

// Lines that only look like markers stay data.
func TestNotMarkers(t *testing.T) {
	for _, line := range []string{"--  --", "-- x", "x --", "--x--", "---- --"} {
		a := Parse([]byte(line + "\n"))
		if len(a.Files) != 0 || a.Comment != line+"\n" {
			t.Errorf("%q: %#v", line, a)
		}
	}
}
