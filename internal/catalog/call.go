package catalog

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/defaults"
)

// Call is what a handler knows of the request beyond its arguments.
type Call struct {
	// Tool is the name of the tool being called.
	Tool string
	req  *mcp.CallToolRequest
	// filled names the arguments session defaults filled (WithDefaults).
	filled []string
}

// FromDefaults reports whether the session defaults gave the argument
// name (WithDefaults), rather than the call itself.
func (c *Call) FromDefaults(name string) bool {
	return c != nil && slices.Contains(c.filled, name)
}

// Limit names the time limit argument arg sets, for a verdict that ran
// out of it (capture.Limit): given says the call had the argument (its own
// or its session default's); config is the config key that set it
// otherwise, "" when the tool's built-in limit did.
func (c *Call) Limit(arg string, given bool, config string) capture.Limit {
	return capture.LimitOf(arg, given, c.FromDefaults(arg), config)
}

// Progress reports progress to the client, if it asked for progress by sending
// a progress token; otherwise it does nothing. total may be 0 when unknown.
// Failures to deliver are ignored: progress is advisory.
func (c *Call) Progress(ctx context.Context, done, total float64, message string) {
	if c == nil || c.req == nil || c.req.Params == nil || c.req.Session == nil {
		return
	}
	token := c.req.Params.GetProgressToken()
	if token == nil {
		return
	}
	_ = c.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: token,
		Progress:      done,
		Total:         total,
		Message:       message,
	})
}

// WithDefaults makes h session-aware: before it runs, the active profile of
// the caller's defaults in book is merged into its arguments under defaults.Merge's rules, and req is
// checked. Session-managed fields stay in In (and so in the public schema) as
// optional overrides, so an explicit argument always wins.
func WithDefaults[In, Out any](book *defaults.Book, req defaults.Requirements, h Handler[In, Out]) Handler[In, Out] {
	return func(ctx context.Context, c *Call, in In) (Result[Out], error) {
		defs := book.For(ctx).Get("")
		merged, err := defaults.MergeInto(in, defs, req)
		if err != nil {
			return Result[Out]{}, err
		}
		if c != nil {
			c.filled = defaults.Filled(in, defs)
		}
		return h(ctx, c, merged)
	}
}
