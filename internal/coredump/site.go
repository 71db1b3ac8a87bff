package coredump

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/crashsite"
)

// The crash site is read in the same gdb run as the backtrace: after bt,
// the arguments, locals and source file of the innermost siteFrames frames
// (`frame apply`, skipping frames with nothing to say), then the fault
// address of the signal. Which of those frames is the crash site is
// crashsite's rule, applied here in Go, so gdb prints a few frames more than
// one; with print limits that is a few hundred bytes per frame.
const siteFrames = 16

// Markers between the sections of the site's output.
const (
	siteArgsMarker   = "TRIAGE-SITE-ARGS"
	siteLocalsMarker = "TRIAGE-SITE-LOCALS"
	siteSourceMarker = "TRIAGE-SITE-SOURCE"
	siteFaultMarker  = "TRIAGE-SITE-FAULT"
	siteEndMarker    = "TRIAGE-SITE-END"
)

// gdbSiteCommands print the site after bt. The print limits bound every
// value: 64 string characters or array elements, repeats folded, structs
// two levels deep; pointers print as their value, NULL as 0x0.
func gdbSiteCommands() []string {
	n := strconv.Itoa(siteFrames)
	cmds := []string{
		"set print elements 64", "set print repeats 8", "set print max-depth 2",
		"set print pretty off", "set print frame-arguments scalars",
		"echo " + siteArgsMarker + `\n`, "frame apply " + n + " -s info args",
		"echo " + siteLocalsMarker + `\n`, "frame apply " + n + " -s info locals",
		"echo " + siteSourceMarker + `\n`, "frame apply " + n + " -s info source",
		"echo " + siteFaultMarker + `\n`, "print $_siginfo._sifields._sigfault.si_addr",
		"echo " + siteEndMarker + `\n`,
	}
	argv := make([]string, 0, 2*len(cmds))
	for _, c := range cmds {
		argv = append(argv, "-ex", c)
	}
	return argv
}

// lldbSiteScript prints, through lldb's Python, the same sections as
// gdbSiteCommands in gdb's words ("#N", "name = value", "Located in
// PATH"), so that one parser reads both. lldb's batch mode stops at a
// command's error, so one script walks the frames rather than a `frame
// select` per frame; a core's stop names no fault address there.
const lldbSiteScript = `exec("t = lldb.thread.frames[:16]\n` +
	`def w(m, a, l):\n` +
	` print(m)\n` +
	` for f in t:\n` +
	`  print('#%d frame' % f.GetFrameID())\n` +
	`  for v in f.GetVariables(a, l, False, True):\n` +
	`   print('%s = %s' % (v.GetName(), ' '.join(x for x in (v.GetValue(), v.GetSummary()) if x) or '{...}'))\n` +
	`w('` + siteArgsMarker + `', True, False)\n` +
	`w('` + siteLocalsMarker + `', False, True)\n` +
	`print('` + siteSourceMarker + `')\n` +
	`for f in t:\n` +
	` print('#%d frame' % f.GetFrameID())\n` +
	` print('Located in %s' % f.GetLineEntry().GetFileSpec().fullpath)\n` +
	`print('` + siteEndMarker + `')\n")`

// siteData is what gdb printed of the innermost frames, by frame index.
type siteData struct {
	args, locals map[int][]crashsite.Var
	paths        map[int]string // "Located in" of info source
	fault        uint64
	hasFault     bool
}

var (
	gdbVarRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z_$][\w$:<>.]*) = (.*)$`) })
	gdbFaultRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\$\d+ = (?:\([^)]*\) )?(0x[0-9a-fA-F]+)`) })
)

// parseGDBSite reads the site's sections of gdb's output (lines after the
// backtrace); nil when there are none (a backtrace-only run).
func parseGDBSite(lines []string) *siteData {
	d := &siteData{args: map[int][]crashsite.Var{}, locals: map[int][]crashsite.Var{}, paths: map[int]string{}}
	section, frame, seen := "", -1, false
	for _, ln := range lines {
		ln = strings.TrimRight(ln, "\r")
		switch strings.TrimSpace(ln) {
		case siteArgsMarker, siteLocalsMarker, siteSourceMarker, siteFaultMarker, siteEndMarker:
			section, frame, seen = strings.TrimSpace(ln), -1, true
			continue
		}
		if m := gdbFrameRE().FindStringSubmatch(ln); m != nil && section != siteFaultMarker {
			frame, _ = strconv.Atoi(m[1])
			continue
		}
		d.add(section, frame, ln)
	}
	if !seen {
		return nil
	}
	return d
}

func (d *siteData) add(section string, frame int, ln string) {
	switch section {
	case siteArgsMarker, siteLocalsMarker:
		m := gdbVarRE().FindStringSubmatch(ln)
		if frame < 0 || m == nil {
			return
		}
		v := crashsite.Var{Name: m[1], Value: m[2]}
		if section == siteArgsMarker {
			d.args[frame] = append(d.args[frame], v)
		} else {
			d.locals[frame] = append(d.locals[frame], v)
		}
	case siteSourceMarker:
		if p, ok := strings.CutPrefix(ln, "Located in "); ok && frame >= 0 {
			d.paths[frame] = strings.TrimSpace(p)
		}
	case siteFaultMarker:
		if m := gdbFaultRE().FindStringSubmatch(ln); m != nil {
			d.fault, _ = strconv.ParseUint(m[1][2:], 16, 64)
			d.hasFault = true
		}
	}
}

// memoryFault: signals whose si_addr is the address that faulted.
func memoryFault(signal string) bool { return signal == "SIGSEGV" || signal == "SIGBUS" }

// CrashSite is the crash site of the frame crashsite's rule picks (for a
// project in projectDir, "" when not known): its source, read from the path
// the debugger located or else from the frame's file under dirs, and the
// arguments, locals and fault address the debugger printed. Nil when there
// is no frame, or nothing to show beyond the frame line.
func (t *Trace) CrashSite(projectDir string, dirs ...string) *crashsite.Site {
	i := crashsite.Pick(SiteFrames(t.Frames), projectDir)
	if i < 0 {
		return nil
	}
	f := t.Frames[i]
	s := &crashsite.Site{Index: f.Index, Function: f.Function, File: f.File, Line: f.Line}
	d := t.site
	if d == nil {
		d = &siteData{}
	}
	// gdb's info source names the current file, which a frame without
	// one leaves as it was: only a path of the frame's own file is taken.
	if p := d.paths[f.Index]; p != "" && filepath.Base(p) == filepath.Base(f.File) {
		s.Path, s.Source = crashsite.ReadSource(p, f.Line)
	}
	if s.Source == nil {
		s.Path, s.Source = crashsite.ReadSource(f.File, f.Line, dirs...)
	}
	s.SetVars(d.args[f.Index], d.locals[f.Index])
	if d.hasFault && memoryFault(t.Signal) {
		s.MarkFault(d.fault)
	}
	s.AddCallers(d.above(t.Frames[i+1:]), projectDir, dirs...)
	if s.Source == nil && len(s.Args)+len(s.Locals) == 0 && s.FaultAddr == "" {
		return nil
	}
	return s
}

// above are the frames above the site as crashsite's callers see them,
// the first siteFrames: the debugger printed variables of no more.
func (d *siteData) above(frames []Frame) []crashsite.Above {
	frames = frames[:min(len(frames), siteFrames)]
	out := make([]crashsite.Above, len(frames))
	for i, f := range frames {
		out[i] = crashsite.Above{Frame: f.Site(), Index: f.Index, Path: d.paths[f.Index],
			Vars: func() ([]crashsite.Var, []crashsite.Var) { return d.args[f.Index], d.locals[f.Index] }}
	}
	return out
}

// GDBSiteCommands are the crash site's commands for a gdb session that
// has the core open (dump_report), in the order SetGDBSite reads their
// outputs. `with` applies the print limits to the one command, so the
// session's own settings stay as the user left them.
func GDBSiteCommands() []string {
	n := strconv.Itoa(siteFrames)
	limits := "with print elements 64 -- with print repeats 8 -- with print max-depth 2 -- "
	return []string{
		limits + "frame apply " + n + " -s info args",
		limits + "frame apply " + n + " -s info locals",
		"frame apply " + n + " -s info source",
	}
}

// SetGDBSite fills t.Site from a gdb session's outputs of GDBSiteCommands
// (in order; a missing one is "") and the fault address it printed ("" when
// not a memory fault), for a project in projectDir ("" when not known); a
// relative source path is looked for under dirs.
func (t *Trace) SetGDBSite(outs []string, faultAddr, projectDir string, dirs ...string) {
	var lines []string
	for i, marker := range []string{siteArgsMarker, siteLocalsMarker, siteSourceMarker} {
		lines = append(lines, marker)
		if i < len(outs) {
			lines = append(lines, strings.Split(outs[i], "\n")...)
		}
	}
	if faultAddr != "" {
		lines = append(lines, siteFaultMarker, "$1 = "+faultAddr)
	}
	t.site = parseGDBSite(lines)
	t.Site = t.CrashSite(projectDir, dirs...)
}
