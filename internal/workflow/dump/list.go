package dump

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/postmortem/analysis"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// ListOutput lists the open sessions.
type ListOutput struct {
	Sessions []wire.DumpSession `json:"sessions" jsonschema:"open dump sessions, oldest first"`
}

func (h *handler) list(ctx context.Context, c *catalog.Call, in struct{}) (catalog.Result[ListOutput], error) {
	var out ListOutput
	sessions := h.svc.Dumps().List(ctx)
	text := fmt.Sprintf("%d dump session(s) open\n", len(sessions))
	for _, s := range sessions {
		out.Sessions = append(out.Sessions, wire.DumpSessionOf(s))
		text += analysis.Status(s)
	}
	return catalog.Result[ListOutput]{Text: text, Output: out}, nil
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
		return catalog.Result[CloseOutput]{}, analysis.Classify(err)
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

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
