package debug

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/store"
)

// writeLogpoints tells of the logpoint hits since the last call that did:
// how many, the last few, and the whole event log stored as an output for
// output_get and output_search. Nothing when there were none.
func (h *handler) writeLogpoints(ctx context.Context, sb *strings.Builder, b debugger.Backend, id string) {
	book := debugger.LogpointsOf(b)
	if book == nil {
		return
	}
	news, err := book.TakeNew()
	switch {
	case err != nil:
		fmt.Fprintf(sb, "logpoints: the event log could not be read: %v\n", err)
		return
	case news.New == 0:
		return
	}
	news.WriteText(sb, h.logRef(ctx, book, id, b.Name()))
}

// logRef stores the whole event log as an output and says where it is.
func (h *handler) logRef(ctx context.Context, book *debugger.LogBook, id, backend string) string {
	oid, err := h.storeLogpoints(ctx, book, id, backend)
	if err != nil {
		return fmt.Sprintf(" (the event log could not be stored: %v)", err)
	}
	return "; event log (JSONL): " + catalog.NextCall("output_get", map[string]any{"output_id": oid})
}

// storeLogpoints stores the whole event log as an output.
func (h *handler) storeLogpoints(ctx context.Context, book *debugger.LogBook, id, backend string) (string, error) {
	data, readErr := book.Contents()
	st, err := h.svc.Store(ctx)
	if err := cmp.Or(readErr, err); err != nil {
		return "", err
	}
	return st.Put(ctx, store.Meta{Tool: "debug_logpoints", Argv: []string{id}, Engine: backend}, string(data), store.Final{Status: "success"})
}
