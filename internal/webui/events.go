package webui

import (
	"fmt"
	"net/http"
	"time"
)

// Pacing of the live stream: changes closer together than minGap are sent
// as one event (a long output grows many times a second), and a comment
// every keepAlive keeps idle connections from being cut by proxies.
const (
	minGap    = 150 * time.Millisecond
	keepAlive = 15 * time.Second
	// pollEvery is how often the store's Version is compared, for the
	// changes another process sharing the store makes (the CLI's daemon
	// beside `triage ui`); this process's own are read at once.
	pollEvery = 400 * time.Millisecond
)

// events streams server-sent events: "ready" once subscribed, then
// "runs" whenever the store's entries change (a run created, grown,
// finished or pruned, here or by another process), so an open Runs page
// reloads its current page, and "sessions" whenever a debug or dump
// session of this process changes (services.SessionsChanged: a stop, a
// breakpoint, a dump command), so an open Sessions page reloads. Store
// changes, by this process or another, are told by the one reader of the
// store's Version that all streams share (watch), once each.
func (u *UI) events(w http.ResponseWriter, r *http.Request) {
	st, err := u.svc.Store(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	flush, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "this connection cannot stream events")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	// Subscribed before "ready": a change after it is seen.
	c := changes{runs: u.watch.next(), sessions: u.svc.SessionsChanged()}
	defer u.watch.join(r.Context(), source{version: st.Version, changed: st.Changed})()
	fmt.Fprint(w, "retry: 1000\nevent: ready\ndata: {}\n\n")
	flush.Flush()
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	var last time.Time
	for {
		select {
		case <-c.runs:
		case <-c.sessions:
		case <-ping.C:
			fmt.Fprint(w, ": ping\n\n")
			flush.Flush()
			continue
		case <-r.Context().Done():
			return
		case <-u.closed:
			return
		}
		if wait := minGap - time.Since(last); wait > 0 { // one event for a burst
			select {
			case <-time.After(wait):
			case <-r.Context().Done():
				return
			}
		}
		// Subscribed again before the events are sent: the page's reload
		// sees every change up to now, and a later one is told.
		runs, sessions := closed(c.runs), closed(c.sessions)
		c = changes{runs: u.watch.next(), sessions: u.svc.SessionsChanged()}
		last = time.Now()
		if runs {
			fmt.Fprint(w, "event: runs\ndata: {}\n\n")
		}
		if sessions {
			fmt.Fprint(w, "event: sessions\ndata: {}\n\n")
		}
		flush.Flush()
	}
}

// changes are the channels one event stream waits on.
type changes struct {
	runs, sessions <-chan struct{}
}

// closed reports a closed channel, without waiting.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
