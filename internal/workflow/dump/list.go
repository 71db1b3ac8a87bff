package dump

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/postmortem/analysis"
)

// ListOutput lists the open sessions.
type ListOutput struct {
	Sessions []SessionOutput `json:"sessions" jsonschema:"open dump sessions, oldest first"`
}

func (h *handler) list(ctx context.Context, c *catalog.Call, in struct{}) (catalog.Result[ListOutput], error) {
	var out ListOutput
	var b strings.Builder
	sessions := h.svc.Dumps().List(ctx)
	fmt.Fprintf(&b, "%d dump session(s) open\n", len(sessions))
	for _, s := range sessions {
		out.Sessions = append(out.Sessions, writeSession(&b, s))
	}
	return catalog.Result[ListOutput]{Text: b.String(), Output: out}, nil
}

// writeSession renders a session and its engines, and returns its output.
func writeSession(b *strings.Builder, s *postmortem.Session) SessionOutput {
	o := sessionOutput(s)
	fmt.Fprintf(b, "%s: %s; refs %d\n", o.SessionID, analysis.Describe(s), o.Refs)
	for _, e := range s.EngineInfos() {
		writeEngine(b, e)
	}
	return o
}

// writeEngine renders an engine's state, process, context and error.
func writeEngine(b *strings.Builder, e postmortem.EngineInfo) {
	fmt.Fprintf(b, "  %s: %s", e.Engine, e.State)
	if e.Pid != 0 {
		fmt.Fprintf(b, " (pid %d)", e.Pid)
	}
	if k := e.Context.Key(); k != "" {
		fmt.Fprintf(b, ", context %s", k)
	}
	if e.Error != "" {
		fmt.Fprintf(b, ": %s", summary(e.Error))
	}
	b.WriteByte('\n')
}

type closeParams struct {
	sessionParam
}

// CloseOutput reports a released session.
type CloseOutput struct {
	SessionID string `json:"session_id" jsonschema:"the session"`
	Remaining int    `json:"remaining" jsonschema:"references left; 0 means closed and its engines stopped"`
}

func (h *handler) close(ctx context.Context, c *catalog.Call, in closeParams) (catalog.Result[CloseOutput], error) {
	s, left, err := h.svc.Dumps().Close(ctx, in.SessionID)
	if err != nil && s == nil {
		return catalog.Result[CloseOutput]{}, describe(err)
	}
	if err != nil {
		h.svc.Log.Warn("closing dump session", "session", s.ID, "err", err)
	}
	return catalog.Result[CloseOutput]{Text: closeText(s.ID, left), Output: CloseOutput{SessionID: s.ID, Remaining: left}}, nil
}

func closeText(id string, left int) string {
	if left > 0 {
		return fmt.Sprintf("RELEASED %s: %d reference(s) left, engines still running\n", id, left)
	}
	return fmt.Sprintf("CLOSED %s: engines stopped\n", id)
}

// summary shortens a multi-line error to its first and last lines (an
// engine's start failure ends with its own message).
func summary(s string) string {
	s = strings.TrimSpace(s)
	first := firstLine(s)
	if first == s {
		return s
	}
	return first + " … " + s[strings.LastIndexByte(s, '\n')+1:]
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
