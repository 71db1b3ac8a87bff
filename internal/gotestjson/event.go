// Package gotestjson decodes the events `go test -json` writes (test2json):
// one JSON object a line, of string fields and one number. Every event of a
// Go test run is read twice (by the log filter and by the test report), and
// a cached run prints them all as it ends, when the caller waits; with
// encoding/json that reading was the largest single part of triage's own time in
// such a run. Decode reads the shape test2json writes itself and hands any
// other line to encoding/json, so its answer is always the one
// encoding/json would give.
package gotestjson

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Event is one test2json event, or one of the build events Go 1.24+ adds
// to that stream ("build-output", "build-fail", keyed by ImportPath). The
// fields no reader here uses (Time, OutputType) are not kept.
type Event struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string
	FailedBuild string
}

// Decode sets ev to the event line holds, as json.Unmarshal into a zero
// Event would, and returns json.Unmarshal's error for a line that is not
// one.
func Decode(line []byte, ev *Event) error {
	*ev = Event{}
	if decodeFast(line, ev, false) {
		return nil
	}
	return decodeSlow(line, ev)
}

// DecodeOutput is Decode keeping only the event's Action, Output and
// Elapsed (the log filter needs no other): the other string fields are
// checked, not copied. A line Decode refuses, it refuses.
func DecodeOutput(line []byte, ev *Event) error {
	*ev = Event{}
	if decodeFast(line, ev, true) {
		return nil
	}
	return decodeSlow(line, ev)
}

// DecodeString is Decode of a line held as a string: the fields without
// escapes are parts of line, not copies.
func DecodeString(line string, ev *Event) error {
	*ev = Event{}
	if decodeFast(line, ev, false) {
		return nil
	}
	return decodeSlow([]byte(line), ev)
}

// decodeSlow is json.Unmarshal into a zero Event, set as ev. The event
// it decodes into goes to the heap, being passed to encoding/json: this
// way only on the lines it reads, not on every line (as ev would, passed
// to it directly).
func decodeSlow(line []byte, ev *Event) error {
	var e Event
	err := json.Unmarshal(line, &e)
	*ev = e
	return err
}

// text is a line of either kind.
type text interface{ ~string | ~[]byte }

// decodeFast reads an object whose keys are plain and whose values are
// strings or numbers, keys matched exactly. It returns false, with ev
// partly set, for anything else: nested values, true/false/null, escaped
// keys, a key that names a field in another case (encoding/json matches
// those), invalid text; encoding/json then decides. With output set, the
// other string fields than Action and Output are not kept.
func decodeFast[T text](b T, ev *Event, output bool) bool {
	d := cursor[T]{b: b}
	if !d.take('{') {
		return false
	}
	if d.take('}') {
		return d.end()
	}
	for {
		d.space()
		key, ok := d.plainString()
		if !ok || !d.take(':') {
			return false
		}
		d.space()
		if d.i >= len(b) {
			return false
		}
		if !d.value(string(key), ev, output) {
			return false
		}
		d.space()
		if d.take(',') {
			continue
		}
		return d.take('}') && d.end()
	}
}

// value reads key's value into ev; false where encoding/json decides. With
// output set, only Action and Output of the string fields are kept, the
// others checked.
func (d *cursor[T]) value(key string, ev *Event, output bool) bool {
	field := ev.field(key)
	switch {
	case key == "Elapsed":
		num, ok := d.number()
		if !ok {
			return false
		}
		f, err := strconv.ParseFloat(string(num), 64)
		ev.Elapsed = f
		return err == nil
	case field != nil && (!output || field == &ev.Action || field == &ev.Output):
		s, ok := d.text()
		*field = s
		return ok
	case field != nil:
		return d.skipText() // a value not a string is encoding/json's error
	case namesField(key):
		return false
	case d.b[d.i] == '"':
		return d.skipText()
	}
	_, ok := d.number()
	return ok
}

// field is the string field key names exactly, or nil.
func (ev *Event) field(key string) *string {
	switch key {
	case "Action":
		return &ev.Action
	case "Package":
		return &ev.Package
	case "Test":
		return &ev.Test
	case "Output":
		return &ev.Output
	case "ImportPath":
		return &ev.ImportPath
	case "FailedBuild":
		return &ev.FailedBuild
	}
	return nil
}

var fieldNames = []string{"Action", "Package", "Test", "Elapsed", "Output", "ImportPath", "FailedBuild"}

// namesField says whether key names a field in another case, as
// encoding/json would take it.
func namesField(key string) bool {
	if key == "Time" || key == "OutputType" {
		return false // test2json's own keys of fields no reader keeps
	}
	for _, n := range fieldNames {
		if strings.EqualFold(key, n) {
			return true
		}
	}
	return false
}

// cursor reads b from i.
type cursor[T text] struct {
	b T
	i int
}

func (c *cursor[T]) space() {
	for c.i < len(c.b) && (c.b[c.i] == ' ' || c.b[c.i] == '\t' || c.b[c.i] == '\n' || c.b[c.i] == '\r') {
		c.i++
	}
}

// take consumes ch after white space, if it comes next.
func (c *cursor[T]) take(ch byte) bool {
	c.space()
	if c.i < len(c.b) && c.b[c.i] == ch {
		c.i++
		return true
	}
	return false
}

// end says whether only white space is left.
func (c *cursor[T]) end() bool {
	c.space()
	return c.i == len(c.b)
}

// plainString reads a string of printable ASCII without escapes (a key as
// test2json writes it).
func (c *cursor[T]) plainString() (T, bool) {
	var none T
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return none, false
	}
	start := c.i + 1
	for j := start; j < len(c.b); j++ {
		switch ch := c.b[j]; {
		case ch == '"':
			c.i = j + 1
			return c.b[start:j], true
		case ch == '\\' || ch < ' ' || ch >= utf8.RuneSelf:
			return none, false
		}
	}
	return none, false
}

// text reads a string value, its escapes undone as encoding/json undoes
// them. Invalid UTF-8, which encoding/json replaces byte by byte, is left
// to it.
func (c *cursor[T]) text() (string, bool) { return c.str(true) }

// skipText reads a string value as text does, keeping nothing (a field no
// reader uses: Time).
func (c *cursor[T]) skipText() bool {
	_, ok := c.str(false)
	return ok
}

// str reads a string value, its text kept when keep is set. Runs of plain
// bytes are copied whole: most Output values end in an escape ("\n"), so
// the copy is the common path.
func (c *cursor[T]) str(keep bool) (string, bool) {
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return "", false
	}
	start := c.i + 1
	j := plainRun(c.b, start)
	if j < len(c.b) && c.b[j] == '"' {
		c.i = j + 1
		if !keep {
			return "", true
		}
		return known(c.b[start:j]), true
	}
	var out []byte
	if keep {
		out = make([]byte, 0, len(c.b)-start)
		out = append(out, c.b[start:j]...)
	}
	for j < len(c.b) {
		switch ch := c.b[j]; {
		case ch == '"':
			c.i = j + 1
			return string(out), true
		case ch < ' ':
			return "", false
		case ch == '\\':
			r, n, ok := unescape(c.b[j:])
			if !ok {
				return "", false
			}
			if keep {
				out = utf8.AppendRune(out, r)
			}
			j += n
		case ch >= utf8.RuneSelf:
			r, n := utf8.DecodeRune([]byte(c.b[j:min(len(c.b), j+utf8.UTFMax)]))
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			if keep {
				out = append(out, c.b[j:j+n]...)
			}
			j += n
		default:
			k := plainRun(c.b, j)
			if keep {
				out = append(out, c.b[j:k]...)
			}
			j = k
		}
	}
	return "", false
}

// plainRun is where the run of plain bytes at b[i:] ends: printable ASCII
// but the quote and the backslash.
func plainRun[T text](b T, i int) int {
	for ; i < len(b); i++ {
		if ch := b[i]; ch == '"' || ch == '\\' || ch < ' ' || ch >= utf8.RuneSelf {
			break
		}
	}
	return i
}

// unescape reads the escape at the start of b: the rune it stands for and
// its length. A \u escape of half a surrogate pair not followed by the
// other half stands for U+FFFD, as in encoding/json.
func unescape[T text](b T) (rune, int, bool) {
	if len(b) < 2 {
		return 0, 0, false
	}
	switch b[1] {
	case '"', '\\', '/':
		return rune(b[1]), 2, true
	case 'b':
		return '\b', 2, true
	case 'f':
		return '\f', 2, true
	case 'n':
		return '\n', 2, true
	case 'r':
		return '\r', 2, true
	case 't':
		return '\t', 2, true
	case 'u':
		r := hex4(b[2:])
		if r < 0 {
			return 0, 0, false
		}
		if !utf16.IsSurrogate(r) {
			return r, 6, true
		}
		if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			if r2 := hex4(b[8:]); r2 >= 0 {
				if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
					return dec, 12, true
				}
			}
		}
		return unicode.ReplacementChar, 6, true
	}
	return 0, 0, false
}

// hex4 is the value of four hex digits at the start of b, or -1.
func hex4[T text](b T) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for i := range 4 {
		c := b[i]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// number reads a number in JSON's grammar: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?
func (c *cursor[T]) number() (T, bool) {
	var none T
	b, start := c.b, c.i
	i := c.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return none, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return none, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return none, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	c.i = i
	return b[start:i], true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// known is s as a string: one of test2json's actions without a copy (a
// []byte line's actions would otherwise be one allocation an event), any
// other text copied from a []byte line and shared with a string one.
func known[T text](s T) string {
	switch string(s) {
	case "output":
		return "output"
	case "run":
		return "run"
	case "pass":
		return "pass"
	case "fail":
		return "fail"
	case "skip":
		return "skip"
	case "start":
		return "start"
	case "pause":
		return "pause"
	case "cont":
		return "cont"
	}
	return string(s)
}
