package coredump

import (
	"path/filepath"
	"strconv"
	"strings"
)

// corePattern is /proc/sys/kernel/core_pattern, parsed.
type corePattern struct {
	raw  string
	pipe bool
	// helper is the pipe program's argv (split on spaces as the kernel does);
	// empty for a file pattern.
	helper []string
}

func parseCorePattern(s string) corePattern {
	s = strings.TrimRight(s, "\n")
	if rest, ok := strings.CutPrefix(s, "|"); ok {
		return corePattern{raw: s, pipe: true, helper: strings.Fields(rest)}
	}
	return corePattern{raw: s}
}

// handlerName returns the pipe helper's program, for messages.
func (c corePattern) handlerName() string {
	if len(c.helper) == 0 {
		return "(empty pipe helper)"
	}
	return c.helper[0]
}

// coreLocation is where a file pattern puts a crash's core: an exact path
// when every specifier is known, else a glob (for %t, %i, %c, ...).
type coreLocation struct {
	exact string // set when the path is fully known
	glob  string // filepath.Match pattern otherwise
}

func (l coreLocation) String() string {
	if l.exact != "" {
		return l.exact
	}
	return l.glob
}

// locate expands a file pattern for c the way the kernel's format_corename
// does (see core(5)): values that may contain '/' are escaped to '!', an
// unknown specifier and a trailing lone '%' are dropped, ".PID" is appended
// when core_uses_pid is set and the pattern has no %p, and a relative result
// is relative to the crashing process's working directory.
func locate(pattern string, c Crash, hostname string, usesPid bool) coreLocation {
	x := &expansion{known: true}
	pidInPattern := false
	for i := 0; i < len(pattern); i++ {
		ch := pattern[i]
		if ch != '%' {
			x.lit(string(ch))
			continue
		}
		i++
		if i >= len(pattern) {
			break // a trailing '%' is dropped
		}
		pidInPattern = pidInPattern || pattern[i] == 'p' || pattern[i] == 'P'
		x.specifier(pattern[i], c, hostname)
	}
	if usesPid && !pidInPattern {
		x.lit(".")
		x.num(c.Pid, c.Pid > 0)
	}
	e, g := x.exact.String(), x.glob.String()
	// Relative or not is the pattern's, not the expansion's: a leading
	// unknown value ("%h/core") leaves the exact text looking absolute.
	if !strings.HasPrefix(pattern, "/") {
		e = filepath.Join(c.Cwd, e)
		g = filepath.Join(escapeGlob(c.Cwd), g)
	}
	if x.known {
		return coreLocation{exact: e}
	}
	return coreLocation{glob: g}
}

// expansion is a core pattern expanded twice: the exact path, while every
// value is known, and a glob with '*' for the values that are not.
type expansion struct {
	exact, glob strings.Builder
	known       bool
}

func (x *expansion) lit(s string) {
	x.exact.WriteString(s)
	x.glob.WriteString(escapeGlob(s))
}

// value is a specifier's text, with '/' replaced as the kernel does.
func (x *expansion) value(s string) { x.lit(strings.ReplaceAll(s, "/", "!")) }

func (x *expansion) unknown() {
	x.known = false
	x.glob.WriteByte('*')
}

func (x *expansion) num(n int, ok bool) {
	if ok {
		x.lit(strconv.Itoa(n))
	} else {
		x.unknown()
	}
}

// valueOr is value(s), or unknown when s is empty.
func (x *expansion) valueOr(s string) {
	if s == "" {
		x.unknown()
	} else {
		x.value(s)
	}
}

// specifier expands the %-specifier spec.
func (x *expansion) specifier(spec byte, c Crash, hostname string) {
	switch spec {
	case '%':
		x.lit("%")
	case 'p', 'P':
		// %P is the pid in the initial namespace; outside containers
		// it equals the pid we hold.
		x.num(c.Pid, c.Pid > 0)
	case 'i', 'I', 't', 'c', 'd':
		x.unknown() // tid, dump time, core limit, dump mode
	case 'u':
		x.num(c.Uid, c.Uid >= 0)
	case 'g':
		x.num(c.Gid, c.Gid >= 0)
	case 's':
		x.num(c.Signal, c.Signal > 0)
	case 'h':
		x.valueOr(hostname)
	case 'e':
		if c.Exe == "" {
			x.unknown()
		} else {
			x.value(commName(c.Exe))
		}
	case 'f':
		if c.Exe == "" {
			x.unknown()
		} else {
			x.value(filepath.Base(c.Exe))
		}
	case 'E':
		x.valueOr(c.Exe)
	}
}

// commName is the kernel's comm for an executable: its basename cut to
// TASK_COMM_LEN-1 bytes.
func commName(exe string) string {
	b := filepath.Base(exe)
	if len(b) > 15 {
		b = b[:15]
	}
	return b
}

func escapeGlob(s string) string {
	if !strings.ContainsAny(s, `*?[\`) {
		return s
	}
	// Byte by byte: the specials are ASCII, and a path that is not UTF-8
	// must come out unchanged.
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[\`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
