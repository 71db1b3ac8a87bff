package coverage

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
)

// gcov's JSON is read by a scanner of its own rather than encoding/json:
// a coverage run waits for the last data file's object to be read, and
// decoding by reflection made a zlib run 7-13 ms longer than discarding
// gcov's output did (BenchmarkCorpusCoverage's project; docs/PERFORMANCE.md),
// most of it in the lines' fields no answer uses (branches, calls, a
// function name a line). The scanner
// frames one object (one data file) at a time, so memory stays one
// object's, and reads only the fields below; anything else is skipped.

// maxGcovObject bounds one data file's JSON object.
const maxGcovObject = 1 << 30

// readGcovJSON reads gcov's output: one JSON object per data file.
func readGcovJSON(r io.Reader, lc *lineCounts) error {
	var g gcovObject
	return eachJSONObject(r, func(obj []byte) error {
		if err := g.parse(obj); err != nil {
			return err
		}
		g.addTo(lc)
		return nil
	})
}

// eachJSONObject calls fn with each top-level object of r, in order; what
// separates them must be white space.
func eachJSONObject(r io.Reader, fn func([]byte) error) error {
	buf := make([]byte, 0, 64<<10)
	var f jsonFramer
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= maxGcovObject {
				return fmt.Errorf("a JSON object of more than %d bytes", maxGcovObject)
			}
			buf = append(buf, make([]byte, len(buf))...)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		for {
			end, ferr := f.scan(buf)
			if ferr != nil {
				return ferr
			}
			if end < 0 {
				break
			}
			if err := fn(buf[f.start:end]); err != nil {
				return err
			}
			buf = buf[:copy(buf, buf[end:])]
			f = jsonFramer{}
		}
		switch {
		case err == io.EOF:
			if f.depth > 0 || f.started {
				return io.ErrUnexpectedEOF
			}
			return nil
		case err != nil:
			return err
		}
	}
}

// jsonFramer finds where a top-level object ends, across reads. Strings
// are passed over by searching for their closing quote (most of gcov's
// bytes are keys and names), the rest a byte at a time.
type jsonFramer struct {
	pos, start, depth int
	started, inStr    bool
}

// scan goes on through buf from where it stopped; end is the index past
// the object's closing brace, or -1 when buf holds no whole object yet.
// buf holds the whole object so far, so an escaping backslash before a
// quote is always in it.
func (f *jsonFramer) scan(buf []byte) (end int, err error) {
	for f.pos < len(buf) {
		if f.inStr {
			j := bytes.IndexByte(buf[f.pos:], '"')
			if j < 0 {
				f.pos = len(buf)
				return -1, nil
			}
			f.pos += j + 1
			f.inStr = escapedQuote(buf, f.pos-1)
			continue
		}
		c := buf[f.pos]
		f.pos++
		switch {
		case !f.started:
			if c == '{' {
				f.started, f.start, f.depth = true, f.pos-1, 1
			} else if !isJSONSpace(c) {
				return 0, fmt.Errorf("gcov's JSON: %q where an object should start", c)
			}
		case c == '"':
			f.inStr = true
		case c == '{' || c == '[':
			f.depth++
		case c == '}' || c == ']':
			if f.depth--; f.depth == 0 {
				return f.pos, nil
			}
		}
	}
	return -1, nil
}

// escapedQuote reports whether the quote at buf[i] is escaped: an odd
// number of backslashes before it.
func escapedQuote(buf []byte, i int) bool {
	n := 0
	for i--; i >= 0 && buf[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// gcovObject is what one data file's object says, its slices reused from
// object to object.
type gcovObject struct {
	cwd   string
	files []gcovFileRec
	lines []gcovLine
	funcs []Func
}

// gcovFileRec is a source file of the object: its lines and functions are
// the object's lines[from:to] and funcs[fnFrom:fnTo].
type gcovFileRec struct {
	file                 string
	from, to, fnFrom, fn int
}

type gcovLine struct {
	line  int
	count int64
}

// parse reads obj ({"files": [...], "current_working_directory": ...}).
func (g *gcovObject) parse(obj []byte) error {
	g.cwd, g.files, g.lines, g.funcs = "", g.files[:0], g.lines[:0], g.funcs[:0]
	c := &jsonCursor{b: obj}
	err := c.object(func(key []byte) error {
		switch string(key) {
		case "current_working_directory":
			s, err := c.text()
			g.cwd = s
			return err
		case "files":
			return c.array(g.parseFile(c))
		}
		return c.skip()
	})
	if err != nil {
		return fmt.Errorf("gcov's JSON: %w", err)
	}
	return nil
}

// parseFile reads one of "files": {"file", "lines", "functions"}.
func (g *gcovObject) parseFile(c *jsonCursor) func() error {
	return func() error {
		rec := gcovFileRec{from: len(g.lines), fnFrom: len(g.funcs)}
		err := c.object(func(key []byte) error {
			switch string(key) {
			case "file":
				s, err := c.text()
				rec.file = s
				return err
			case "lines":
				return c.array(g.parseLine(c))
			case "functions":
				return c.array(g.parseFunc(c))
			}
			return c.skip()
		})
		rec.to, rec.fn = len(g.lines), len(g.funcs)
		g.files = append(g.files, rec)
		return err
	}
}

// parseLine reads one of a file's "lines": its number and count.
func (g *gcovObject) parseLine(c *jsonCursor) func() error {
	return func() error {
		var l gcovLine
		err := c.object(func(key []byte) error {
			switch string(key) {
			case "line_number":
				n, err := c.integer()
				l.line = int(n)
				return err
			case "count":
				n, err := c.integer()
				l.count = n
				return err
			}
			return c.skip()
		})
		g.lines = append(g.lines, l)
		return err
	}
}

// parseFunc reads one of a file's "functions": its names and lines.
func (g *gcovObject) parseFunc(c *jsonCursor) func() error {
	return func() error {
		var name, demangled string
		var from, to int64
		err := c.object(func(key []byte) (err error) {
			switch string(key) {
			case "name":
				name, err = c.text()
			case "demangled_name":
				demangled, err = c.text()
			case "start_line":
				from, err = c.integer()
			case "end_line":
				to, err = c.integer()
			default:
				err = c.skip()
			}
			return err
		})
		g.funcs = append(g.funcs, Func{Name: cmp.Or(demangled, name), From: int(from), To: int(to)})
		return err
	}
}

// addTo adds the object's lines and functions to lc, a relative file name
// being the compilation directory's.
func (g *gcovObject) addTo(lc *lineCounts) {
	for _, f := range g.files {
		path := f.file
		if !filepath.IsAbs(path) {
			path = filepath.Join(g.cwd, path)
		}
		path = filepath.Clean(path)
		for _, l := range g.lines[f.from:f.to] {
			if l.line > 0 && l.count >= 0 {
				lc.add(path, l.line, l.count)
			}
		}
		for _, fn := range g.funcs[f.fnFrom:f.fn] {
			lc.addFunc(path, fn)
		}
	}
}

// jsonCursor reads JSON values from b, one token at a time.
type jsonCursor struct {
	b []byte
	i int
}

var errJSONEnd = errors.New("the JSON ends early")

func (c *jsonCursor) space() {
	for c.i < len(c.b) && isJSONSpace(c.b[c.i]) {
		c.i++
	}
}

// take consumes ch, after white space.
func (c *jsonCursor) take(ch byte) error {
	c.space()
	if c.i >= len(c.b) {
		return errJSONEnd
	}
	if c.b[c.i] != ch {
		return fmt.Errorf("%q where %q should be, at byte %d", c.b[c.i], ch, c.i)
	}
	c.i++
	return nil
}

// more reads what follows a member or element: true after a comma, false
// at the closing byte.
func (c *jsonCursor) more(closing byte) (bool, error) {
	c.space()
	if c.i >= len(c.b) {
		return false, errJSONEnd
	}
	switch c.b[c.i] {
	case ',':
		c.i++
		return true, nil
	case closing:
		c.i++
		return false, nil
	}
	return false, fmt.Errorf("%q where ',' or %q should be, at byte %d", c.b[c.i], closing, c.i)
}

// empty consumes closing if it comes next (an empty object or array).
func (c *jsonCursor) empty(closing byte) bool {
	c.space()
	if c.i < len(c.b) && c.b[c.i] == closing {
		c.i++
		return true
	}
	return false
}

// object reads an object, calling member with each key (its raw bytes,
// escapes left as they are) to read the value.
func (c *jsonCursor) object(member func(key []byte) error) error {
	if err := c.take('{'); err != nil {
		return err
	}
	if c.empty('}') {
		return nil
	}
	for {
		c.space()
		key, _, err := c.rawString()
		if err != nil {
			return err
		}
		if err := c.take(':'); err != nil {
			return err
		}
		c.space()
		if err := member(key); err != nil {
			return err
		}
		if more, err := c.more('}'); !more || err != nil {
			return err
		}
	}
}

// array reads an array, calling element to read each element.
func (c *jsonCursor) array(element func() error) error {
	if err := c.take('['); err != nil {
		return err
	}
	if c.empty(']') {
		return nil
	}
	for {
		c.space()
		if err := element(); err != nil {
			return err
		}
		if more, err := c.more(']'); !more || err != nil {
			return err
		}
	}
}

// rawString reads a string and returns what is between its quotes, and
// whether that holds an escape.
func (c *jsonCursor) rawString() (raw []byte, escaped bool, err error) {
	if err := c.take('"'); err != nil {
		return nil, false, err
	}
	start := c.i
	for {
		j := bytes.IndexByte(c.b[c.i:], '"')
		if j < 0 {
			return nil, false, errJSONEnd
		}
		c.i += j + 1
		if !escapedQuote(c.b, c.i-1) {
			raw = c.b[start : c.i-1]
			return raw, bytes.IndexByte(raw, '\\') >= 0, nil
		}
	}
}

// text reads a string value, its escapes undone.
func (c *jsonCursor) text() (string, error) {
	start := c.i
	raw, escaped, err := c.rawString()
	if err != nil || !escaped {
		return string(raw), err
	}
	var s string
	if err := json.Unmarshal(c.b[start:c.i], &s); err != nil {
		return "", err
	}
	return s, nil
}

// integer reads a number that must be a whole one.
func (c *jsonCursor) integer() (int64, error) {
	start := c.i
	var n int64
	digits := true
	for ; c.i < len(c.b) && isNumberByte(c.b[c.i]); c.i++ {
		d := c.b[c.i] - '0'
		if d > 9 || n > (1<<62)/5 {
			digits = false
			continue
		}
		n = n*10 + int64(d)
	}
	if digits && c.i > start {
		return n, nil
	}
	text := string(c.b[start:c.i])
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || f != float64(int64(f)) {
		return 0, fmt.Errorf("%q where a whole number should be, at byte %d", text, start)
	}
	return int64(f), nil
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// skip reads past one value of any kind.
func (c *jsonCursor) skip() error {
	if c.i >= len(c.b) {
		return errJSONEnd
	}
	switch c.b[c.i] {
	case '"':
		_, _, err := c.rawString()
		return err
	case '{', '[':
		var f jsonFramer
		f.started, f.depth, f.pos = true, 1, c.i+1
		end, err := f.scan(c.b)
		if err != nil {
			return err
		}
		if end < 0 {
			return errJSONEnd
		}
		c.i = end
		return nil
	}
	start := c.i
	for c.i < len(c.b) && !isJSONSpace(c.b[c.i]) && c.b[c.i] != ',' && c.b[c.i] != '}' && c.b[c.i] != ']' {
		c.i++
	}
	if c.i == start {
		return fmt.Errorf("%q where a value should be, at byte %d", c.b[c.i], c.i)
	}
	return nil
}
