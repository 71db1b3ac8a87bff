package lldbcli

import (
	"context"
	"fmt"
	"strconv"

	"github.com/triage-dev/triage/internal/debugger"
)

// Logpoints on the lldb command line: the breakpoint gets a Python command
// (debugger's logpoint.py) that appends the hit to the session's event log
// and returns False, so lldb goes on without a stop report.

// checkLogpoint refuses a logpoint where its log could not be read: the
// Python runs in lldb, which writes the log on its own host.
func (b *Backend) checkLogpoint(spec debugger.BreakpointSpec) error {
	if spec.LogMessage == "" {
		return nil
	}
	b.mu.Lock()
	remote := b.host != ""
	b.mu.Unlock()
	switch {
	case remote:
		return fmt.Errorf("logpoints on another host with the lldb backend (its lldb would write the log there); use backend dap: %w", debugger.ErrUnsupported)
	case b.cfg.Dir == "":
		return fmt.Errorf("logpoints: the session has no directory for its event log: %w", debugger.ErrUnsupported)
	}
	return nil
}

// makeLogpoint turns lldb's breakpoint lldbID into a logpoint for our next
// id (the op lock is held, so it is the one it gets).
func (b *Backend) makeLogpoint(ctx context.Context, lldbID int, msg string) error {
	b.mu.Lock()
	id := b.nextID + 1
	if b.book == nil {
		b.book = debugger.NewLogBook(b.cfg.Dir)
	}
	path := b.book.Path()
	b.mu.Unlock()
	add, err := debugger.LLDBLogpointAdd(lldbID, id, path, msg)
	if err != nil {
		return err
	}
	for _, cmd := range []string{debugger.LLDBLogpointLoad(), add, debugger.LLDBLogpointCommand(lldbID)} {
		if _, err := b.runChecked(ctx, cmd); err != nil {
			_, _ = b.run(ctx, "breakpoint delete "+strconv.Itoa(lldbID), nil)
			return fmt.Errorf("making breakpoint a logpoint: %w", err)
		}
	}
	return nil
}

// Logpoints implements debugger.LogpointBackend.
func (b *Backend) Logpoints() *debugger.LogBook {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.book
}
