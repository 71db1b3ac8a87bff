package testreport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// testlogDecoder reads testlog.json's records from a stream. It knows
// just enough JSON for them: an object of strings, numbers, literals, and
// (skipped) objects and arrays, one a line.
type testlogDecoder struct {
	br   *bufio.Reader
	nl   int // newlines read
	line int // of the record being read, from 1
}

// testlogReadError is a failure to read the input, not a fault in it.
type testlogReadError struct{ err error }

func (e *testlogReadError) Error() string { return e.err.Error() }

var errTestlogSyntax = errors.New("not a JSON object")

// read reads a byte of a record: io.ErrUnexpectedEOF at the end of the
// input, a *testlogReadError when reading fails, errTestlogSyntax at the
// end of the line (left for skipLine).
func (d *testlogDecoder) read() (byte, error) {
	b, err := d.br.ReadByte()
	switch {
	case err == io.EOF:
		return 0, io.ErrUnexpectedEOF
	case err != nil:
		return 0, &testlogReadError{err}
	case b == '\n':
		d.br.UnreadByte()
		return 0, errTestlogSyntax
	}
	return b, nil
}

// next reads the next record; io.EOF when there is none.
func (d *testlogDecoder) next() (*testlogRecord, error) {
	rec := &testlogRecord{}
	for {
		b, err := d.br.ReadByte()
		if err == io.EOF {
			return rec, io.EOF
		}
		if err != nil {
			return rec, &testlogReadError{err}
		}
		if b == '\n' {
			d.nl++
		}
		if b == '\n' || b == ' ' || b == '\t' || b == '\r' {
			continue
		}
		d.line = d.nl + 1
		if b != '{' {
			d.br.UnreadByte()
			return rec, errTestlogSyntax
		}
		return rec, d.object(rec)
	}
}

// skipLine skips what is left of a line that is not a record.
func (d *testlogDecoder) skipLine() error {
	_, err := d.br.ReadSlice('\n')
	for err == bufio.ErrBufferFull {
		_, err = d.br.ReadSlice('\n')
	}
	if err == nil {
		d.nl++
	}
	return err
}

// space skips blanks within a line.
func (d *testlogDecoder) space() (byte, error) {
	for {
		b, err := d.read()
		if err != nil || (b != ' ' && b != '\t' && b != '\r') {
			return b, err
		}
	}
}

// object reads a record's fields, after its "{".
func (d *testlogDecoder) object(rec *testlogRecord) error {
	for {
		b, err := d.space()
		if err != nil {
			return err
		}
		switch b {
		case '}':
			return nil
		case ',':
			continue
		case '"':
		default:
			return errTestlogSyntax
		}
		key, err := d.text(maxKey, nil)
		if err != nil {
			return err
		}
		if b, err = d.space(); err != nil {
			return err
		} else if b != ':' {
			return errTestlogSyntax
		}
		if err := d.field(rec, key); err != nil {
			return err
		}
	}
}

// field reads the value of the field key.
func (d *testlogDecoder) field(rec *testlogRecord, key string) error {
	b, err := d.space()
	if err != nil {
		return err
	}
	d.br.UnreadByte()
	switch {
	case b == '"' && (key == "name" || key == "result"):
		d.br.ReadByte()
		max := maxWordField
		if key == "name" {
			max = maxNameField
		}
		s, err := d.text(max, nil)
		if key == "name" {
			rec.name = s
		} else {
			rec.result = s
		}
		return err
	case b == '"' && (key == "stdout" || key == "stderr"):
		d.br.ReadByte()
		lw := lineWriter{out: &rec.out}
		_, err := d.text(0, &lw)
		lw.flush()
		return err
	case key == "returncode" && (b == '-' || isDigit(b)):
		s, err := d.number()
		if err != nil {
			return err
		}
		n, perr := strconv.Atoi(s)
		rec.returncode, rec.hasCode = n, perr == nil
		return nil
	case key == "duration" && isDigit(b):
		s, err := d.number()
		if err != nil {
			return err
		}
		rec.duration, _ = strconv.ParseFloat(s, 64)
		return nil
	}
	return d.skipValue()
}

// number reads a number's text.
func (d *testlogDecoder) number() (string, error) {
	var buf []byte
	for {
		b, err := d.read()
		if err != nil {
			return "", err
		}
		if !isDigit(b) && !strings.ContainsRune("-+.eE", rune(b)) {
			d.br.UnreadByte()
			return string(buf), nil
		}
		if len(buf) >= maxNumberText {
			return "", errTestlogSyntax
		}
		buf = append(buf, b)
	}
}

// text reads a string after its opening quote: up to keepMax bytes of it are
// returned (cut on a character), and all of it, decoded, goes to w (when
// not nil). Runs of plain bytes are taken from the buffer whole.
func (d *testlogDecoder) text(keepMax int, w *lineWriter) (string, error) {
	var keep []byte
	plain := func(b []byte) {
		if room := keepMax - len(keep); room > 0 {
			keep = append(keep, b[:min(room, len(b))]...)
		}
		if w != nil {
			w.write(b)
		}
	}
	done := func() string { return strings.ToValidUTF8(string(keep), "") }
	for {
		if n := d.br.Buffered(); n > 0 {
			buf, _ := d.br.Peek(n)
			i := bytes.IndexAny(buf, "\"\\\n")
			if i < 0 {
				i = n
			}
			if i > 0 {
				plain(buf[:i])
				d.br.Discard(i)
				continue
			}
		}
		b, err := d.read()
		if err != nil {
			return done(), err
		}
		switch b {
		case '"':
			return done(), nil
		case '\\':
			r, err := d.escape()
			if err != nil {
				return done(), err
			}
			var enc [utf8.UTFMax]byte
			plain(enc[:utf8.EncodeRune(enc[:], r)])
		default:
			plain([]byte{b})
		}
	}
}

// escape reads an escape after its backslash.
func (d *testlogDecoder) escape() (rune, error) {
	b, err := d.read()
	if err != nil {
		return 0, err
	}
	switch b {
	case '"', '\\', '/':
		return rune(b), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := d.hex4()
		if err != nil || !utf16IsHigh(r) {
			return r, err
		}
		// A surrogate pair, "\ud83c\udf11".
		if b, err := d.br.Peek(2); err != nil || string(b) != `\u` {
			return utf8.RuneError, nil
		}
		d.br.Discard(2)
		lo, err := d.hex4()
		if err != nil {
			return 0, err
		}
		if lo < 0xdc00 || lo > 0xdfff {
			return utf8.RuneError, nil
		}
		return 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00), nil
	}
	return 0, errTestlogSyntax
}

func utf16IsHigh(r rune) bool { return r >= 0xd800 && r < 0xdc00 }

func (d *testlogDecoder) hex4() (rune, error) {
	var r rune
	for range 4 {
		b, err := d.read()
		if err != nil {
			return 0, err
		}
		var v byte
		switch {
		case isDigit(b):
			v = b - '0'
		case 'a' <= b && b <= 'f':
			v = b - 'a' + 10
		case 'A' <= b && b <= 'F':
			v = b - 'A' + 10
		default:
			return 0, errTestlogSyntax
		}
		r = r<<4 | rune(v)
	}
	return r, nil
}

// skipValue skips a value: a string, a number, a literal, or an object or
// array of any depth (the environment, the command).
func (d *testlogDecoder) skipValue() error {
	depth := 0
	for {
		b, err := d.read()
		if err != nil {
			return err
		}
		switch b {
		case '"':
			if _, err := d.text(0, nil); err != nil {
				return err
			}
			if depth == 0 {
				return nil
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 { // the record's end, after a number or a literal
				d.br.UnreadByte()
				return nil
			}
			if depth--; depth == 0 {
				return nil
			}
		case ',':
			if depth == 0 {
				d.br.UnreadByte()
				return nil
			}
		}
	}
}

// lineWriter splits a field's decoded text into lines for a testOutput,
// each cut to maxOutputLine.
type lineWriter struct {
	out *testOutput
	buf []byte
	cut bool
}

// write takes the next piece of the text.
func (w *lineWriter) write(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		line := b
		if i >= 0 {
			line = b[:i]
		}
		if room := maxOutputLine - len(w.buf); len(line) > room {
			w.buf, w.cut = append(w.buf, line[:max(room, 0)]...), true
		} else {
			w.buf = append(w.buf, line...)
		}
		if i < 0 {
			return
		}
		w.flush()
		b = b[i+1:]
	}
}

// flush ends the line being read, at a newline or the text's end.
func (w *lineWriter) flush() {
	if len(w.buf) > 0 {
		l := strings.ToValidUTF8(string(w.buf), "")
		if w.cut {
			l += "…"
		}
		w.out.feed(l)
	}
	w.buf, w.cut = w.buf[:0], false
}
