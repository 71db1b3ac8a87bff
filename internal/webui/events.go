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
)

// events streams server-sent events: "ready" once subscribed, then
// "runs" whenever the store's entries change (a run created, grown,
// finished or pruned), so an open Runs page reloads its current page.
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
	changed := st.Changed() // before "ready": a change after it is seen
	fmt.Fprint(w, "retry: 1000\nevent: ready\ndata: {}\n\n")
	flush.Flush()
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	var last time.Time
	for {
		select {
		case <-changed:
			if wait := minGap - time.Since(last); wait > 0 {
				select {
				case <-time.After(wait):
				case <-r.Context().Done():
					return
				}
			}
			changed = st.Changed()
			last = time.Now()
			fmt.Fprint(w, "event: runs\ndata: {}\n\n")
		case <-ping.C:
			fmt.Fprint(w, ": ping\n\n")
		case <-r.Context().Done():
			return
		case <-u.closed:
			return
		}
		flush.Flush()
	}
}
