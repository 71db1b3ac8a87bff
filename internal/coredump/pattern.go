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
	var exact, glob strings.Builder
	known := true
	lit := func(s string) {
		exact.WriteString(s)
		glob.WriteString(escapeGlob(s))
	}
	value := func(s string) { lit(strings.ReplaceAll(s, "/", "!")) }
	unknown := func() {
		known = false
		glob.WriteByte('*')
	}
	num := func(n int, ok bool) {
		if ok {
			lit(strconv.Itoa(n))
		} else {
			unknown()
		}
	}
	pidInPattern := false
	for i := 0; i < len(pattern); i++ {
		ch := pattern[i]
		if ch != '%' {
			lit(string(ch))
			continue
		}
		i++
		if i >= len(pattern) {
			break // a trailing '%' is dropped
		}
		switch pattern[i] {
		case '%':
			lit("%")
		case 'p', 'P':
			// %P is the pid in the initial namespace; outside containers
			// it equals the pid we hold.
			pidInPattern = true
			num(c.Pid, c.Pid > 0)
		case 'i', 'I', 't', 'c', 'd':
			unknown() // tid, dump time, core limit, dump mode
		case 'u':
			num(c.Uid, c.Uid >= 0)
		case 'g':
			num(c.Gid, c.Gid >= 0)
		case 's':
			num(c.Signal, c.Signal > 0)
		case 'h':
			if hostname == "" {
				unknown()
			} else {
				value(hostname)
			}
		case 'e':
			if c.Exe == "" {
				unknown()
			} else {
				value(commName(c.Exe))
			}
		case 'f':
			if c.Exe == "" {
				unknown()
			} else {
				value(filepath.Base(c.Exe))
			}
		case 'E':
			if c.Exe == "" {
				unknown()
			} else {
				value(c.Exe)
			}
		}
	}
	if usesPid && !pidInPattern {
		lit(".")
		num(c.Pid, c.Pid > 0)
	}
	e, g := exact.String(), glob.String()
	// Relative or not is the pattern's, not the expansion's: a leading
	// unknown value ("%h/core") leaves the exact text looking absolute.
	if !strings.HasPrefix(pattern, "/") {
		e = filepath.Join(c.Cwd, e)
		g = filepath.Join(escapeGlob(c.Cwd), g)
	}
	if known {
		return coreLocation{exact: e}
	}
	return coreLocation{glob: g}
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
