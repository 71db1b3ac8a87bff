package webui

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/shellcmd"
)

// crashSite is the crash site an answer shows (wire.CrashSite): the first
// frame in the project's code with its source, arguments and locals, a
// memory fault's address, and the frames that called toward it.
type crashSite struct {
	siteFrame
	FaultAddr string   `json:"fault_addr,omitempty"`
	Callers   []caller `json:"callers,omitempty"`
}

// siteFrame is a frame as the crash site shows it: where, its source, its
// arguments and locals.
type siteFrame struct {
	Frame    int          `json:"frame"`
	Function string       `json:"function,omitempty"`
	File     string       `json:"file,omitempty"`
	Line     int          `json:"line,omitempty"`
	Source   []sourceLine `json:"source,omitempty"`
	Args     []variable   `json:"args,omitempty"`
	Locals   []variable   `json:"locals,omitempty"`
	VarsCut  int          `json:"vars_cut,omitempty"`
}

// caller is a frame above the site that called toward it; Param is the
// argument of the frame below it passed, as Expr.
type caller struct {
	siteFrame
	Param string `json:"param,omitempty"`
	Expr  string `json:"expr,omitempty"`
}

type sourceLine struct {
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Current bool   `json:"current,omitempty"`
}

type variable struct {
	Name      string `json:"name"`
	Value     string `json:"value"`
	NearFault bool   `json:"near_fault,omitempty"`
}

// hint is a next step of an answer (wire.Hint), its call's arguments kept
// as they were written.
type hint struct {
	Text string          `json:"text"`
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// nextStep is a hint as the page shows it: its call as the CLI command a
// person pastes, written by the CLI's own rule (internal/shellcmd).
type nextStep struct {
	Text    string `json:"text"`
	Command string `json:"command,omitempty"`
}

func nextSteps(hs []hint) []nextStep {
	var out []nextStep
	for _, h := range hs {
		n := nextStep{Text: h.Text}
		if h.Tool != "" {
			if cmd, ok := shellcmd.Command(h.Tool, h.Args); ok {
				n.Command = cmd
			}
		}
		out = append(out, n)
	}
	return out
}

// ending is a signalled run's signal and what it usually means: its exit
// code, -1, says nothing to a reader.
func ending(v runVerdict) string {
	if v.Signal == "" {
		return ""
	}
	if v.Meaning != "" {
		return v.Signal + " (" + v.Meaning + ")"
	}
	return v.Signal
}

type hangStack struct {
	Kind   string  `json:"kind"`
	ID     int     `json:"id"`
	Name   string  `json:"name"`
	State  string  `json:"state"`
	Frames []frame `json:"frames"`
}

// title names a stack: goroutine 7 main.worker (chan receive).
func (k hangStack) title() string {
	t := strings.TrimSpace(k.Kind + " " + strconv.Itoa(k.ID) + " " + k.Name)
	if k.State != "" {
		t += " (" + k.State + ")"
	}
	return t
}

// maxOtherStacks bounds the stacks a hang's page shows beside the stuck
// ones: the kept answer has the stuck ones first, the rest is context.
const maxOtherStacks = 16

// view is a hang's stuck stacks, each with the frame it waited at marked,
// and its other stacks (those no stuck entry names); nil for no hang.
func (h *hangReport) view() (stuckOnes, others []stuck) {
	if h == nil {
		return nil, nil
	}
	named := map[int]bool{}
	for _, s := range h.Stuck {
		st := stuck{Reason: s.Reason, Test: s.Test, Frames: []frame{s.Frame}}
		if s.Stack >= 0 && s.Stack < len(h.Stacks) {
			k := h.Stacks[s.Stack]
			st.Stack, st.Frames, named[s.Stack] = k.title(), k.Frames, true
			markProject(st.Frames, &s.Frame)
		}
		stuckOnes = append(stuckOnes, st)
	}
	for i, k := range h.Stacks {
		if !named[i] && len(others) < maxOtherStacks {
			others = append(others, stuck{Stack: k.title(), Frames: k.Frames})
		}
	}
	return stuckOnes, others
}
