package memcheck

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/textclip"
)

// Bounds of what is read and kept.
const (
	MaxXMLBytes = 8 << 20 // bytes of valgrind's XML read (and kept in Result.XML)
	MaxErrors   = 16      // errors kept; the rest are counted (Log.Seen)
	MaxFrames   = 24      // frames kept of a stack; valgrind is asked for no more
	maxAux      = 4       // auxiliary stacks kept of an error
	maxNotes    = 4       // auxiliary words without a stack kept of an error
	maxText     = 400     // bytes of a what, an auxwhat, a function or a path
)

// ErrNotValgrind says a document is not valgrind's XML of memcheck or of
// a thread checker (helgrind, drd).
var ErrNotValgrind = errors.New("not valgrind memcheck's XML")

// Log is what valgrind's XML says of one run.
type Log struct {
	Protocol int    `json:"protocol"` // <protocolversion>: 4 since valgrind 3.5
	Tool     string `json:"tool"`     // <protocoltool>: memcheck
	// Errors are the errors in the order valgrind reported them, at most
	// MaxErrors; Seen counts them all.
	Errors []Report `json:"errors"`
	Seen   int      `json:"seen"`
	// Finished: valgrind's FINISHED status was read (the program ended and
	// valgrind was not killed before it could say so).
	Finished bool `json:"finished"`
	// Whole: the document closes (</valgrindoutput>); else Cut says where
	// and why it ends.
	Whole bool   `json:"whole"`
	Cut   string `json:"cut,omitempty"`
	// Signal is the fatal signal the program died of, when it did.
	Signal *Signal `json:"signal,omitempty"`
}

// Signal is valgrind's <fatal_signal>: the program died of it.
type Signal struct {
	Name    string  `json:"name"`              // "SIGSEGV"
	Number  int     `json:"number"`            // 11
	Event   string  `json:"event,omitempty"`   // "Access not within mapped region"
	Address string  `json:"address,omitempty"` // the fault address, "0x0"
	Stack   []Frame `json:"stack,omitempty"`
	At      int     `json:"at"` // the frame of Stack to name (Pick); -1 when none
}

// Parse reads valgrind memcheck's XML (protocol 4), or helgrind's or
// drd's (helgrind.go). A document that starts
// as valgrind's but is cut or malformed further on is no error: the Log
// holds what was read and Cut says where it ends. projectDir (may be "")
// decides which frame of each stack is the project's own. leaks false
// leaves leak errors out (valgrind 3.19 under --xml=yes checks leaks even
// with --leak-check=no, unless told to show none).
func Parse(data []byte, projectDir string, leaks bool) (*Log, error) {
	p := &parser{d: xml.NewDecoder(bytes.NewReader(data)), lg: &Log{}, projectDir: projectDir, leaks: leaks, counts: map[string]int{}}
	lg, root := p.lg, false
	for !lg.Whole && lg.Cut == "" {
		tok, err := p.d.Token()
		if err != nil {
			if !root {
				return nil, fmt.Errorf("%w: %v", ErrNotValgrind, err)
			}
			lg.Cut = p.cutWhy(err, len(data))
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !root {
				if t.Name.Local != "valgrindoutput" {
					return nil, fmt.Errorf("%w: its root is <%s>", ErrNotValgrind, t.Name.Local)
				}
				root = true
			} else if err := p.element(t); err != nil {
				lg.Cut = p.cutWhy(err, len(data))
			}
		case xml.EndElement:
			lg.Whole = t.Name.Local == "valgrindoutput"
		}
	}
	if !knownTool(lg.Tool) {
		return nil, fmt.Errorf("%w: its tool is %q", ErrNotValgrind, lg.Tool)
	}
	for i := range lg.Errors {
		r := &lg.Errors[i]
		if !isLeak(r.Kind) {
			r.Count = p.counts[r.unique]
		}
		if !isMemcheck(lg.Tool) {
			r.Tool = lg.Tool
			r.Words = words(r)
		}
	}
	return lg, nil
}

// parser reads one document.
type parser struct {
	d          *xml.Decoder
	lg         *Log
	projectDir string
	leaks      bool
	counts     map[string]int // valgrind's error counts by <unique>
}

func (p *parser) cutWhy(err error, size int) string {
	// encoding/xml says "unexpected EOF" in a SyntaxError of its own: an
	// error at the data's end is the end.
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || p.d.InputOffset() >= int64(size) {
		return fmt.Sprintf("it ends at byte %d before </valgrindoutput>", size)
	}
	return fmt.Sprintf("malformed at byte %d: %v", p.d.InputOffset(), err)
}

// element reads one element of <valgrindoutput>.
func (p *parser) element(start xml.StartElement) error {
	d, lg := p.d, p.lg
	switch start.Name.Local {
	case "protocolversion":
		var s string
		err := d.DecodeElement(&s, &start)
		lg.Protocol, _ = strconv.Atoi(strings.TrimSpace(s))
		return err
	case "protocoltool":
		var s string
		err := d.DecodeElement(&s, &start)
		lg.Tool = strings.TrimSpace(s)
		return err
	case "status":
		var st struct {
			State string `xml:"state"`
		}
		err := d.DecodeElement(&st, &start)
		lg.Finished = lg.Finished || strings.TrimSpace(st.State) == "FINISHED"
		return err
	case "error":
		return p.error(start)
	case "errorcounts":
		return p.readCounts(start)
	case "fatal_signal":
		return p.signal(start)
	}
	return d.Skip()
}

// error reads an <error>: kept while fewer than MaxErrors are, else only
// its kind is read, to be counted.
func (p *parser) error(start xml.StartElement) error {
	if len(p.lg.Errors) >= MaxErrors {
		var k struct {
			Kind string `xml:"kind"`
		}
		err := p.d.DecodeElement(&k, &start)
		if err == nil && (p.leaks || !isLeak(strings.TrimSpace(k.Kind))) {
			p.lg.Seen++
		}
		return err
	}
	var x xmlError
	if err := p.d.DecodeElement(&x, &start); err != nil {
		return err
	}
	r := x.report(p.projectDir)
	if p.leaks || !isLeak(r.Kind) {
		p.lg.Seen++
		p.lg.Errors = append(p.lg.Errors, r)
	}
	return nil
}

func isLeak(kind string) bool { return strings.HasPrefix(kind, "Leak_") }

func (p *parser) readCounts(start xml.StartElement) error {
	var ec struct {
		Pairs []struct {
			Count  string `xml:"count"`
			Unique string `xml:"unique"`
		} `xml:"pair"`
	}
	err := p.d.DecodeElement(&ec, &start)
	for _, pair := range ec.Pairs {
		n, _ := strconv.Atoi(strings.TrimSpace(pair.Count))
		u := strings.TrimSpace(pair.Unique)
		p.counts[u] = max(p.counts[u], n)
	}
	return err
}

func (p *parser) signal(start xml.StartElement) error {
	var x struct {
		Signo   string     `xml:"signo"`
		Signame string     `xml:"signame"`
		Event   string     `xml:"event"`
		Siaddr  string     `xml:"siaddr"`
		Frames  []xmlFrame `xml:"stack>frame"`
	}
	if err := p.d.DecodeElement(&x, &start); err != nil {
		return err
	}
	n, _ := strconv.Atoi(strings.TrimSpace(x.Signo))
	frames, _ := toFrames(x.Frames)
	p.lg.Signal = &Signal{Name: clip(x.Signame), Number: n, Event: clip(x.Event), Address: clip(x.Siaddr),
		Stack: frames, At: Pick(frames, p.projectDir)}
	return nil
}

// xmlFrame is valgrind's <frame>.
type xmlFrame struct {
	IP   string `xml:"ip"`
	Obj  string `xml:"obj"`
	Fn   string `xml:"fn"`
	Dir  string `xml:"dir"`
	File string `xml:"file"`
	Line string `xml:"line"`
}

// xmlError is valgrind's <error>, its children kept in order: an <auxwhat>
// describes the <stack> after it.
type xmlError struct {
	Children []xmlChild `xml:",any"`
}

// xmlChild is any child of an <error>; the fields that do not belong to
// its element stay empty.
type xmlChild struct {
	XMLName      xml.Name
	Text         string     `xml:",chardata"`
	Frames       []xmlFrame `xml:"frame"`        // <stack>
	XText        string     `xml:"text"`         // <xwhat>, <xauxwhat>
	LeakedBytes  string     `xml:"leakedbytes"`  // <xwhat>
	LeakedBlocks string     `xml:"leakedblocks"` // <xwhat>
	What         string     `xml:"what"`         // <origin>
	OriginFrames []xmlFrame `xml:"stack>frame"`  // <origin>
}

// report turns an <error> into a Report.
func (x *xmlError) report(projectDir string) Report {
	r := Report{At: -1}
	var pending []string // auxwhats waiting for their stack
	primary := false
	for _, c := range x.Children {
		switch c.XMLName.Local {
		case "unique":
			r.unique = strings.TrimSpace(c.Text)
		case "tid":
			r.Thread, _ = strconv.Atoi(strings.TrimSpace(c.Text))
		case "kind":
			r.Kind = clip(c.Text)
		case "what", "xwhat":
			r.setWhat(c)
		case "leakedbytes", "leakedblocks":
			r.setLeak(c.XMLName.Local, c.Text)
		case "auxwhat", "xauxwhat":
			pending = append(pending, clip(c.Text+c.XText))
		case "origin":
			r.addAux(clip(c.What), c.OriginFrames, projectDir)
		case "stack":
			if !primary {
				primary = true
				r.Stack, r.Dropped = toFrames(c.Frames)
				r.At = Pick(r.Stack, projectDir)
				continue
			}
			r.addAux(strings.Join(pending, "; "), c.Frames, projectDir)
			pending = nil
		}
	}
	r.Notes = pending[:min(len(pending), maxNotes)]
	r.finish()
	return r
}

func (r *Report) setWhat(c xmlChild) {
	if r.What == "" {
		r.What = clip(c.Text + c.XText)
	}
	if c.LeakedBytes != "" {
		r.setLeak("leakedbytes", c.LeakedBytes)
	}
	if c.LeakedBlocks != "" {
		r.setLeak("leakedblocks", c.LeakedBlocks)
	}
}

func (r *Report) setLeak(field, text string) {
	n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	if err != nil {
		return
	}
	if r.Leak == nil {
		r.Leak = &Leak{}
	}
	if field == "leakedbytes" {
		r.Leak.Bytes = n
	} else {
		r.Leak.Blocks = n
	}
}

func (r *Report) addAux(what string, xf []xmlFrame, projectDir string) {
	if len(r.Aux) >= maxAux {
		return
	}
	frames, dropped := toFrames(xf)
	role := Other
	for _, w := range strings.Split(what, "; ") {
		if role = roleOf(w); role != Other {
			break
		}
	}
	r.Aux = append(r.Aux, Stack{What: what, Role: role, Frames: frames, At: Pick(frames, projectDir), Dropped: dropped})
}

// finish derives what the words and the fields say: the block, the access
// and the plain words.
func (r *Report) finish() {
	for _, s := range r.Aux {
		if r.Block == nil {
			r.Block = parseBlock(s.What)
		}
	}
	for _, n := range r.Notes {
		if r.Block == nil {
			r.Block = parseBlock(n)
		}
	}
	r.Access = parseAccess(r.What)
	r.Words = words(r)
}

func toFrames(xf []xmlFrame) ([]Frame, int) {
	dropped := max(0, len(xf)-MaxFrames)
	xf = xf[:len(xf)-dropped]
	frames := make([]Frame, len(xf))
	for i, f := range xf {
		line, _ := strconv.Atoi(strings.TrimSpace(f.Line))
		frames[i] = Frame{IP: clip(f.IP), Object: clip(f.Obj), Function: clip(f.Fn),
			Dir: clip(f.Dir), File: clip(f.File), Line: line}
	}
	return frames, dropped
}

func clip(s string) string { return textclip.String(strings.TrimSpace(s), maxText) }
