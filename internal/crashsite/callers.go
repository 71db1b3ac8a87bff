package crashsite

import (
	"path/filepath"
	"slices"
)

// A crash's faulting value is often not made where it faults: a small
// helper dereferences the NULL its caller handed it, and the helper is
// fine. So a site also shows the frames that called toward it, in the
// project's own code, up to the one that computed or passed the faulting
// value; each bounded like the site (the call's line with CallerContext
// lines either side, the first MaxCallerVars arguments and locals).
//
// Which frames: the next ones in the project's own code above the site
// (the runtime's and dependencies' are skipped: a libc callback's caller
// is still the project's), at most MaxCallers, fewer when the faulting
// value's provenance is known to end sooner:
//
//   - the faulting pointer is a local of the site's frame and no argument
//     is (of the arguments it lists: a debugger that lists none, as
//     lldb-dap, leaves it unknown): that frame computed it, no caller is
//     shown;
//   - it is one argument: the caller's call line is read for the expression
//     passed at that argument's position (Caller.Param, Caller.Expr); when
//     the expression is the caller's own argument the walk follows it one
//     frame further, when it is an expression or the caller's local the
//     caller computed it and is the last shown;
//   - not known (no fault address, several pointers beside it, a call not
//     read): the next MaxCallers project frames.
const (
	MaxCallers    = 3
	CallerContext = 1
	MaxCallerVars = 8
)

// Caller is a frame above the site that called toward it.
type Caller struct {
	Index    int // its index in the backtrace
	Function string
	File     string
	Line     int
	Path     string       // the file Source was read from, "" when not found
	Source   []SourceLine // the call's line and CallerContext lines either side
	Args     []Var
	Locals   []Var
	VarsCut  int // arguments and locals left out
	// Param is the argument of the frame below that this frame passed, and
	// Expr the expression its call line passes at Param's position: "node"
	// is this frame's "t->slots[i]". Both empty when not known.
	Param string
	Expr  string
}

// Above is a frame above the site as the debugger gave it.
type Above struct {
	Frame
	Index int    // its index in the backtrace
	Path  string // the source file the debugger located for it, "" when none
	// Vars reads its arguments and locals; called only for a frame shown
	// (nil: none known).
	Vars func() (args, locals []Var)
}

// AddCallers fills s.Callers from the frames above s (innermost first) by
// the rule above; s's variables must be marked already (MarkFault). A
// relative source path is looked for under dirs; projectDir may be "".
func (s *Site) AddCallers(above []Above, projectDir string, dirs ...string) {
	param, ok := s.faultingArg()
	if !ok {
		return
	}
	dir := cleanDir(projectDir)
	below, belowFn, belowArgs := s.Index, s.Function, s.Args
	for _, f := range above {
		if len(s.Callers) == MaxCallers {
			return
		}
		if !f.HasSource() || originOf(f.Frame, dir) != Project {
			continue
		}
		c := newCaller(f, dirs)
		if param != "" && f.Index == below+1 {
			c.Param = param
			c.Expr = passedExpr(c.callLine(), belowFn, varNames(belowArgs), param)
			if c.Expr == "" {
				c.Param = ""
			}
		}
		s.Callers = append(s.Callers, c)
		switch {
		case c.Expr == "":
			param = ""
		case slices.Contains(varNames(c.Args), c.Expr):
			param = c.Expr // passed on as it was given: follow it
		case !identRE().MatchString(c.Expr) || slices.Contains(varNames(c.Locals), c.Expr):
			return // this frame computed the value it passed
		default:
			param = "" // a name not known here: a global, variables not read
		}
		below, belowFn, belowArgs = f.Index, f.Function, c.Args
	}
}

// faultingArg names the one argument of the site's frame beside the
// fault; ok is false when a local is beside it and no argument is (the
// frame computed the value: no caller to show).
func (s *Site) faultingArg() (name string, ok bool) {
	var args []string
	for _, v := range s.Args {
		if v.NearFault {
			args = append(args, v.Name)
		}
	}
	if len(args) == 1 {
		return args[0], true
	}
	local := slices.ContainsFunc(s.Locals, func(v Var) bool { return v.NearFault })
	// A frame that lists no arguments may be one whose debugger lists them
	// among its locals (lldb-dap): its local is not known to be its own.
	return "", len(args) > 0 || !local || len(s.Args) == 0
}

func newCaller(f Above, dirs []string) Caller {
	c := Caller{Index: f.Index, Function: f.Function, File: f.File, Line: f.Line}
	// A debugger's located path is taken only for the frame's own file.
	if f.Path != "" && filepath.Base(f.Path) == filepath.Base(f.File) {
		c.Path, c.Source = ReadSource(f.Path, f.Line)
	}
	if c.Source == nil {
		c.Path, c.Source = ReadSource(f.File, f.Line, dirs...)
	}
	c.Source = slices.DeleteFunc(c.Source, func(l SourceLine) bool {
		return l.Line < f.Line-CallerContext || l.Line > f.Line+CallerContext
	})
	if f.Vars != nil {
		args, locals := f.Vars()
		room := MaxCallerVars
		c.Args, room = keepVars(args, room)
		c.Locals, _ = keepVars(locals, room)
		c.VarsCut = len(args) + len(locals) - len(c.Args) - len(c.Locals)
	}
	return c
}

// callLine is the text of the line the frame is at, "" when not read.
func (c Caller) callLine() string {
	for _, l := range c.Source {
		if l.Current {
			return l.Text
		}
	}
	return ""
}

func varNames(vars []Var) []string {
	out := make([]string, len(vars))
	for i, v := range vars {
		out[i] = v.Name
	}
	return out
}
