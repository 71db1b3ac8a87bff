package analysis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/store"
)

// Result is one command's outcome, fresh or served from the cache.
type Result struct {
	Engine  postmortem.Engine
	Command string // as sent, prefix removed
	Route   string // why that engine: a postmortem route reason
	Cached  bool
	// Error is the engine's error message when the command failed.
	Error string
	// Context is the engine's context after the command.
	Context postmortem.Context
	// Notes say what happened to the engine (restarts).
	Notes  []string
	Output Stored
	// text is the whole output when at hand (not for excerpt cache hits).
	text string
}

// Run executes a routed command through the cache: a cacheable command
// whose output is stored under its CommandKey is not run again unless
// c.Force is set. Outputs the engine reports as errors are stored but not
// cached.
func (a *Analyst) Run(ctx context.Context, c Call, route postmortem.Route) (Result, error) {
	st, err := a.store(ctx)
	if err != nil {
		return Result{}, err
	}
	e, cmd := route.Engine, route.Command
	if err := postmortem.CheckCommand(e, cmd); err != nil {
		return Result{}, err
	}
	r := Result{Engine: e, Command: cmd, Route: route.Reason}
	before := c.Session.Context(e)
	key, cacheable := postmortem.CommandKey(c.Session.Hash, e, cmd, before)
	cacheable = cacheable && !postmortem.IsContextSwitch(e, cmd)
	if cacheable && !c.Force {
		if id, ok, err := st.CacheGet(ctx, key); err == nil && ok {
			if hit, err := a.cached(ctx, st, id, r, before); err == nil {
				c.Session.Record(postmortem.Command{Command: cmd, Engine: e, At: time.Now(), Cached: true, OutputID: id})
				return hit, nil
			}
		}
	}
	return a.exec(ctx, st, c, r, cacheable)
}

// exec runs r's command on the engine, stores its output, and caches it
// when it may be; the session's history records it, done or not.
func (a *Analyst) exec(ctx context.Context, st *store.Store, c Call, r Result, cacheable bool) (Result, error) {
	at := time.Now()
	r, err := a.execStore(ctx, st, c, r, cacheable)
	h := postmortem.Command{Command: r.Command, Engine: r.Engine, At: at, OutputID: r.Output.ID, Error: r.Error}
	if err != nil {
		h.Error = err.Error()
	}
	c.Session.Record(h)
	return r, err
}

func (a *Analyst) execStore(ctx context.Context, st *store.Store, c Call, r Result, cacheable bool) (Result, error) {
	s, e := c.Session, r.Engine
	res, err := s.Exec(ctx, e, r.Command, c.Timeout, c.Force)
	if err != nil {
		return r, execError(err, c.Limit)
	}
	r.Context, r.Notes = res.After, res.Notes
	r.Error = postmortem.EngineError(e, res.Output)
	text := res.Output
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	status := "success"
	if r.Error != "" {
		status = "failure"
	}
	meta := store.Meta{Tool: c.Tool, Argv: []string{string(e), r.Command}, Cwd: s.WorkDir, Engine: string(e), ContextKey: res.Before.Key()}
	id, err := st.Put(context.WithoutCancel(ctx), meta, text, store.Final{Status: status, VerdictLine: r.Error})
	if err != nil {
		return r, err
	}
	if r.Error == "" && cacheable {
		// The key of the context the command really ran under.
		key, _ := postmortem.CommandKey(s.Hash, e, r.Command, res.Before)
		if err := st.CachePut(context.WithoutCancel(ctx), key, id); err != nil {
			a.log.Warn("caching dump output", "key", key, "err", err)
		}
	}
	ex := a.excerpt(text)
	a.excerpts.put(id, ex)
	r.Output, r.text = stored(id, ex), text
	return r, nil
}

// cached serves a stored output.
func (a *Analyst) cached(ctx context.Context, st *store.Store, id string, r Result, cur postmortem.Context) (Result, error) {
	r.Cached, r.Context = true, cur
	ex, ok := a.excerpts.get(id)
	if !ok {
		t, err := readAll(ctx, st, id)
		if err != nil {
			return Result{}, err
		}
		r.text, ex = t, a.excerpt(t)
		a.excerpts.put(id, ex)
	}
	r.Output = stored(id, ex)
	return r, nil
}

// fullText returns r's whole output, reading it from the store when it was
// served from the excerpt cache.
func (a *Analyst) fullText(ctx context.Context, r Result) (string, error) {
	if r.text != "" || r.Output.TotalLines == 0 {
		return r.text, nil
	}
	st, err := a.store(ctx)
	if err != nil {
		return "", err
	}
	return readAll(ctx, st, r.Output.ID)
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

// execError keeps the engine's words; a timeout or death carries the
// partial output's tail, and a timeout names its limit.
func execError(err error, limit string) error {
	var ce *postmortem.CommandError
	if errors.As(err, &ce) {
		if ce.Timeout > 0 && ce.Limit == "" {
			ce.Limit = limit
		}
		if t := tailLines(ce.Output, 10); t != "" {
			return fmt.Errorf("%w\nlast output:\n%s", ce, t)
		}
	}
	return err
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
