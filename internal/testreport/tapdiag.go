package testreport

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// tapDiag is a "Failed test" diagnostic.
type tapDiag struct {
	name, file string
	line       int
	text       string
	todo, used bool
}

// tapYAML is a YAML block under a result.
type tapYAML struct {
	indent int    // of its "---"
	c      int    // the case it tells of; -1 for a subtest's
	key    string // a block scalar's key ("error: |-") being read
	vals   map[string]string
}

// diagLine reads Test::More's diagnostics; it reports whether the line was one.
func (p *tapParser) diagLine(t string, indent int) bool {
	if !strings.HasPrefix(t, "#") {
		p.diag = nil
		return false
	}
	if indent > 0 {
		return true // a subtest's: its parent's diagnostics follow
	}
	if m := tapFailedDiagRE().FindStringSubmatch(t); m != nil {
		p.diag = nil
		if len(p.diags) >= maxErrors {
			return true
		}
		p.diags = append(p.diags, tapDiag{name: m[2], file: m[3], todo: m[1] != ""})
		d := &p.diags[len(p.diags)-1]
		d.line, _ = strconv.Atoi(m[4])
		p.diag = d
		return true
	}
	d := p.diag
	if d == nil {
		return true // a comment
	}
	if m := tapDiagAtRE().FindStringSubmatch(t); m != nil && d.file == "" {
		d.file = m[1]
		d.line, _ = strconv.Atoi(m[2])
		return true
	}
	if !strings.HasPrefix(t, "#  ") {
		p.diag = nil // "# Looks like you failed 1 test of 6.", "# Subtest: x"
		return true
	}
	if len(d.text) < maxMessage {
		d.text += strings.TrimSpace(strings.TrimPrefix(t, "#")) + "\n"
	}
	return true
}

// applyDiags gives the failed cases the site and text of their
// diagnostics: by name, else (a test without a name, a test file under
// prove without -v) the first of its file.
func (p *tapParser) applyDiags() {
	for i := range p.rep.Cases {
		c := &p.rep.Cases[i]
		if c.Status != Failed && c.Status != Errored && c.Status != Crashed || c.File != "" {
			continue
		}
		for j := range p.diags {
			d := &p.diags[j]
			if d.used || d.todo || d.file == "" {
				continue
			}
			if d.name != "" && d.name == c.Name || d.name == "" && d.file == c.Suite || d.file == c.Name {
				d.used = true
				c.File, c.Line = d.file, d.line
				what := "Failed test"
				if d.name != "" {
					what += " '" + d.name + "'"
				}
				what += fmt.Sprintf(" at %s line %d", d.file, d.line)
				if txt := strings.TrimSpace(d.text); txt != "" {
					what += "\n" + txt
				}
				if c.Message != "" {
					what += "\n" + c.Message
				}
				c.Message = bound(what)
				break
			}
		}
	}
}

// yamlLine reads a line of a YAML block; it reports whether the line was
// the block's (a block that ends without its "..." ends before a line
// indented less than its "---").
func (p *tapParser) yamlLine(l string) bool {
	y := p.yaml
	t := strings.TrimSpace(l)
	indent := len(l) - len(strings.TrimLeft(l, " "))
	switch {
	case t == "..." && indent <= y.indent:
		p.endYAML()
		return true
	case t != "" && indent < y.indent:
		p.endYAML()
		return false
	case y.key != "" && (indent > y.indent || t == ""):
		if v := y.vals[y.key]; len(v) < maxMessage {
			y.vals[y.key] = v + strings.TrimPrefix(l, strings.Repeat(" ", y.indent+2)) + "\n"
		}
		return true
	}
	y.key = ""
	k, v, ok := strings.Cut(t, ":")
	if !ok || indent != y.indent {
		return true
	}
	v = strings.TrimSpace(v)
	switch v {
	case "|", "|-", "|+", ">", ">-", ">+":
		y.key = k
		return true
	}
	y.vals[k] = yamlScalar(v)
	return true
}

// yamlScalar is a one-line YAML value without its quotes.
func yamlScalar(v string) string {
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	if len(v) >= 2 && v[0] == '"' {
		if u, err := strconv.Unquote(v); err == nil {
			return u
		}
	}
	return v
}

// tapSiteRE reads a YAML site: "/src/t.mjs:5:1", "t/x.t:12", "t/x.t line 12".
var tapSiteRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(.+?)(?::(\d+)(?::\d+)?| line (\d+))$`)
})

// endYAML gives the block's case what the block says of it.
func (p *tapParser) endYAML() {
	y := p.yaml
	p.yaml = nil
	if y.c < 0 || y.c >= len(p.rep.Cases) {
		return
	}
	c := &p.rep.Cases[y.c]
	if ms, err := strconv.ParseFloat(y.vals["duration_ms"], 64); err == nil {
		c.Duration = time.Duration(ms * float64(time.Millisecond))
	}
	if c.Status != Failed {
		return
	}
	msg := y.vals["message"]
	if msg == "" {
		msg = y.vals["error"]
	}
	if msg = strings.TrimSpace(msg); msg != "" {
		if c.Message != "" {
			msg += "\n" + c.Message
		}
		c.Message = bound(msg)
	}
	site := y.vals["location"]
	if site == "" {
		site = y.vals["at"]
	}
	if m := tapSiteRE().FindStringSubmatch(site); m != nil {
		c.File = m[1]
		c.Line, _ = strconv.Atoi(m[2] + m[3])
	} else if f, n := y.vals["file"], y.vals["line"]; f != "" {
		c.File = f
		c.Line, _ = strconv.Atoi(n)
	}
}
