package dump

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/store"
)

type commandParams struct {
	sessionParam
	Command  string           `json:"command" jsonschema:"a crash:, drgn:, gdb: or lldb: prefix picks the engine"`
	Engine   string           `json:"engine,omitempty"` // the tool description names the engines
	Force    bool             `json:"force,omitempty" jsonschema:"bypass the cache"`
	TimeoutS duration.Seconds `json:"timeout_s,omitempty"`
}

// CommandOutput is one command's result.
type CommandOutput struct {
	SessionID string             `json:"session_id" jsonschema:"the session"`
	Engine    string             `json:"engine" jsonschema:"engine that ran the command"`
	Command   string             `json:"command" jsonschema:"the command as sent, prefix removed"`
	Route     string             `json:"route" jsonschema:"why that engine: explicit, prefix, crash-verb, python or default"`
	Cached    bool               `json:"cached,omitempty" jsonschema:"served from the cache (force re-runs)"`
	Error     string             `json:"error,omitempty" jsonschema:"the engine's error message when the command failed"`
	Context   postmortem.Context `json:"context" jsonschema:"engine context after the command (task, CPU, thread, frame)"`
	Notes     []string           `json:"notes,omitempty" jsonschema:"what happened to the engine (restarts)"`
	catalog.Captured
	// Commands are the results of a command of several lines, one a line
	// in order; the fields above then describe the whole (its first engine
	// error, the context after the last line) and carry no output.
	Commands []CommandOutput `json:"commands,omitempty" jsonschema:"one result a line, for a command of several lines"`
}

func (h *handler) command(ctx context.Context, c *catalog.Call, in commandParams) (catalog.Result[CommandOutput], error) {
	timeout, err := in.TimeoutS.Timeout(0, duration.CommandMax)
	if err != nil {
		return catalog.Result[CommandOutput]{}, err
	}
	s, err := h.session(in.SessionID)
	if err != nil {
		return catalog.Result[CommandOutput]{}, err
	}
	route, err := s.Router.Route(in.Command, postmortem.Engine(in.Engine))
	if err != nil {
		return catalog.Result[CommandOutput]{}, describe(err)
	}
	lines, err := route.Lines()
	if err != nil {
		return catalog.Result[CommandOutput]{}, describe(err)
	}
	if len(lines) > 1 {
		return h.runLines(ctx, c, s, route, lines, in.Force, timeout)
	}
	route.Command = lines[0]
	if route.Engine == postmortem.EngineCrash || route.Engine == postmortem.EngineGDB {
		c.Progress(ctx, 0, 0, fmt.Sprintf("%s: %s", route.Engine, firstLine(route.Command)))
	}
	r, err := h.run(ctx, c.Tool, s, route, in.Force, timeout)
	if err != nil {
		return catalog.Result[CommandOutput]{}, err
	}
	return r.result(), nil
}

// ran is one command's outcome, fresh or cached.
type ran struct {
	out     CommandOutput
	excerpt excerpt.Excerpt
	// text is the whole output when the caller asked for it.
	text string
}

func (r ran) result() catalog.Result[CommandOutput] {
	var b strings.Builder
	r.write(&b)
	outcome := catalog.OK
	if r.out.Error != "" {
		outcome = catalog.Failed
	}
	return catalog.Result[CommandOutput]{Text: b.String(), Output: r.out, Outcome: outcome}
}

// write renders one command's result: its verdict line, context, notes and
// output excerpt.
func (r ran) write(b *strings.Builder) {
	o := r.out
	label := fmt.Sprintf("%s %q", o.Engine, firstLine(o.Command))
	switch {
	case o.Error != "":
		fmt.Fprintf(b, "ENGINE ERROR %s: %s\n", label, o.Error)
	default:
		fmt.Fprintf(b, "OK %s: %d lines", label, o.TotalLines)
		if o.Cached {
			b.WriteString(" (cached; force: true re-runs)")
		}
		b.WriteByte('\n')
	}
	if k := o.Context.Key(); k != "" {
		fmt.Fprintf(b, "context: %s\n", k)
	}
	for _, n := range o.Notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
	catalog.WriteExcerpt(b, o.Captured, r.excerpt.Text)
}

// run executes a routed command through the cache: a cacheable command
// whose output is stored under its CommandKey is not run again unless force
// is set. Outputs the engine reports as errors are stored but not cached.
func (h *handler) run(ctx context.Context, tool string, s *postmortem.Session, route postmortem.Route, force bool, timeout time.Duration) (ran, error) {
	st, err := h.svc.Store(ctx)
	if err != nil {
		return ran{}, err
	}
	e, cmd := route.Engine, route.Command
	if err := postmortem.CheckCommand(e, cmd); err != nil {
		return ran{}, describe(err)
	}
	out := CommandOutput{SessionID: s.ID, Engine: string(e), Command: cmd, Route: route.Reason}
	before := s.Context(e)
	key, cacheable := postmortem.CommandKey(s.Hash, e, cmd, before)
	cacheable = cacheable && !postmortem.IsContextSwitch(e, cmd)
	if cacheable && !force {
		if id, ok, err := st.CacheGet(ctx, key); err == nil && ok {
			if r, err := h.cached(ctx, st, id, out, before); err == nil {
				return r, nil
			}
		}
	}
	res, err := s.Exec(ctx, e, cmd, timeout, force)
	if err != nil {
		return ran{}, execError(err)
	}
	out.Context, out.Notes = res.After, res.Notes
	out.Error = postmortem.EngineError(e, res.Output)
	text := res.Output
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	status := "success"
	if out.Error != "" {
		status = "failure"
	}
	id, err := st.Put(context.WithoutCancel(ctx), store.Meta{Tool: tool, Argv: []string{string(e), cmd}, Cwd: s.WorkDir, Engine: string(e), ContextKey: res.Before.Key()},
		text, store.Final{Status: status, VerdictLine: out.Error})
	if err != nil {
		return ran{}, err
	}
	if out.Error == "" && cacheable {
		// The key of the context the command really ran under.
		key, _ = postmortem.CommandKey(s.Hash, e, cmd, res.Before)
		if err := st.CachePut(context.WithoutCancel(ctx), key, id); err != nil {
			h.svc.Log.Warn("caching dump output", "key", key, "err", err)
		}
	}
	ex := h.buildExcerpt(text)
	h.excerpts.put(id, ex)
	out.Captured = catalog.NewCaptured(id, ex.TotalLines, ex.Truncated)
	return ran{out: out, excerpt: ex, text: text}, nil
}

// cached serves a stored output.
func (h *handler) cached(ctx context.Context, st *store.Store, id string, out CommandOutput, cur postmortem.Context) (ran, error) {
	out.Cached, out.Context = true, cur
	ex, ok := h.excerpts.get(id)
	var text string
	if !ok {
		t, err := readAll(ctx, st, id)
		if err != nil {
			return ran{}, err
		}
		text, ex = t, h.buildExcerpt(t)
		h.excerpts.put(id, ex)
	}
	out.Captured = catalog.NewCaptured(id, ex.TotalLines, ex.Truncated)
	return ran{out: out, excerpt: ex, text: text}, nil
}

// fullText returns r's whole output, reading it from the store when it was
// served from the excerpt cache.
func (h *handler) fullText(ctx context.Context, r ran) (string, error) {
	if r.text != "" || r.out.TotalLines == 0 {
		return r.text, nil
	}
	st, err := h.svc.Store(ctx)
	if err != nil {
		return "", err
	}
	return readAll(ctx, st, r.out.OutputID)
}

// readAll reads a stored output, up to store.MaxPageLines lines.
func readAll(ctx context.Context, st *store.Store, id string) (string, error) {
	p, err := st.Page(ctx, id, 0, store.MaxPageLines)
	if err != nil {
		return "", err
	}
	if len(p.Lines) == 0 {
		return "", nil
	}
	return strings.Join(p.Lines, "\n") + "\n", nil
}

func (h *handler) buildExcerpt(text string) excerpt.Excerpt {
	return buildExcerpt(text, h.svc.Config.BudgetBytes()/2)
}

func buildExcerpt(text string, budget int) excerpt.Excerpt {
	b := excerpt.New(budget, important)
	b.Write([]byte(text))
	b.Flush()
	return b.Excerpt()
}

// important picks the lines an excerpt shows first.
func important(line []byte) bool { return logfilter.Classify(line).MustKeep() }

// execError keeps the engine's words; a timeout or death carries the
// partial output's tail.
func execError(err error) error {
	var ce *postmortem.CommandError
	if errors.As(err, &ce) {
		msg := ce.Error()
		if t := tailLines(ce.Output, 10); t != "" {
			msg += "\nlast output:\n" + t
		}
		return errors.New(msg)
	}
	return describe(err)
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// excerptCache keeps the excerpts of recent outputs so that a cache hit
// costs no store read. Outputs are immutable once stored.
type excerptCache struct {
	mu    sync.Mutex
	max   int
	items map[string]excerpt.Excerpt
	order []string
}

func newExcerptCache(max int) *excerptCache {
	return &excerptCache{max: max, items: map[string]excerpt.Excerpt{}}
}

func (c *excerptCache) get(id string) (excerpt.Excerpt, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[id]
	return e, ok
}

func (c *excerptCache) put(id string, e excerpt.Excerpt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[id]; ok {
		return
	}
	if len(c.order) >= c.max {
		delete(c.items, c.order[0])
		c.order = c.order[1:]
	}
	c.items[id] = e
	c.order = append(c.order, id)
}
