package webui

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/textclip"
)

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	json.NewEncoder(w).Encode(v)
}

// writeError answers a JSON error the page shows as text.
func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// fail answers err with the status its kind gives (internal/fault).
func fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	switch {
	case errors.Is(err, store.ErrNotFound), fault.KindOf(err) == fault.KindNotFound:
		code = http.StatusNotFound
	case fault.KindOf(err) == fault.KindUsage:
		code = http.StatusBadRequest
	}
	writeError(w, code, err.Error())
}

// intParam reads a non-negative integer query parameter (def when absent).
func intParam(r *http.Request, name string, def int) (int, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fault.Usagef("%s=%q: give a whole number, 0 or more", name, s)
	}
	return n, nil
}

// page is the store and the offset and limit (limit's default def) a
// paged request asks for.
func (u *UI) page(r *http.Request, def int) (st *store.Store, offset, limit int, err error) {
	if st, err = u.svc.Store(r.Context()); err != nil {
		return nil, 0, 0, err
	}
	if offset, err = intParam(r, "offset", 0); err != nil {
		return nil, 0, 0, err
	}
	if limit, err = intParam(r, "limit", def); err != nil {
		return nil, 0, 0, err
	}
	return st, offset, limit, nil
}

// statusClass names the statuses of each colour the page filters by: a
// run's (verdict) and a build or test's (pipeline) words for one outcome.
var statusClass = map[string][]string{
	"success":     {"success", "succeeded"},
	"failure":     {"failure", "failed", "silent_failure"},
	"crash":       {"crash", "crashed"},
	"timeout":     {"timeout", "timed_out"},
	"interrupted": {"interrupted"},
	"running":     {"running"},
	"incomplete":  {"incomplete"},
}

// askedEngine are the tools whose stored engine commands a caller asked
// for. The Runs list leaves out the others' (a dump_report's nine gdb
// commands): their session's history links to them.
var askedEngine = []string{"dump_command", "debug_command", "debug_logpoints"}

// runs answers one page of the stored entries, newest first, filtered by
// status, tool and text, with their count.
func (u *UI) runs(w http.ResponseWriter, r *http.Request) {
	st, offset, limit, err := u.page(r, 50)
	if err != nil {
		fail(w, err)
		return
	}
	q := r.URL.Query()
	l, err := st.Find(r.Context(), store.Filter{Statuses: statusClass[q.Get("status")], Tool: q.Get("tool"), Text: q.Get("q"),
		Offset: offset, Limit: limit, AskedEngine: askedEngine})
	if err != nil {
		fail(w, err)
		return
	}
	page := runsPage{Entries: make([]boundedEntry, len(l.Entries)), Total: l.Total, Offset: l.Offset}
	for i, e := range l.Entries {
		page.Entries[i] = bounded(e, listFieldBytes)
	}
	writeJSON(w, page)
}

// runsPage is store.Listing with each entry bounded.
type runsPage struct {
	Entries []boundedEntry `json:"entries"`
	Total   int            `json:"total"`
	Offset  int            `json:"offset"`
}

// tools answers the tools of the stored entries, for the Runs filter.
func (u *UI) tools(w http.ResponseWriter, r *http.Request) {
	st, err := u.svc.Store(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	t, err := st.Tools(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, t)
}

// runDetail is one run: its entry and the evidence kept beside it.
type runDetail struct {
	boundedEntry
	Duration float64   `json:"duration_s,omitempty"`
	Cores    []string  `json:"cores,omitempty"`    // core dumps kept for it
	Findings *findings `json:"findings,omitempty"` // from the answer kept with it
}

// run answers one stored entry, the cores kept with it and what its
// call's kept answer shows (evidence, tests, diagnostics).
func (u *UI) run(w http.ResponseWriter, r *http.Request) {
	st, err := u.svc.Store(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	e, err := st.Info(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	d := runDetail{boundedEntry: bounded(e, detailFieldBytes)}
	if !e.Finished.IsZero() {
		d.Duration = e.Finished.Sub(e.Created).Round(time.Millisecond).Seconds()
	}
	if files, err := os.ReadDir(st.CoreDir(e.ID)); err == nil {
		for _, f := range files {
			d.Cores = append(d.Cores, filepath.Join(st.CoreDir(e.ID), f.Name()))
		}
	}
	raw, err := st.Result(r.Context(), e.ID)
	if err != nil {
		fail(w, err)
		return
	}
	d.Findings = findingsOf(raw)
	writeJSON(w, d)
}

// raw sends the whole output as plain text, streamed chunk by chunk.
func (u *UI) raw(w http.ResponseWriter, r *http.Request) {
	st, err := u.svc.Store(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	id := r.PathValue("id")
	if _, err := st.Info(r.Context(), id); err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+id+`.log"`)
	// Headers are gone once bytes flow: a failure now can only cut the body.
	st.WriteRaw(r.Context(), id, w)
}

// doctorReport answers what `triage doctor` says.
func (u *UI) doctorReport(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, map[string]string{"text": u.doctor(r.Context())})
}

// What the API answers of a stored entry's client-given fields (argv,
// directory) is bounded: a run's argv is the client's, and one of
// megabytes would otherwise go whole into every page of the Runs list.
// The stored output keeps them whole.
const (
	listFieldBytes   = 4 << 10  // per field, in a page of the Runs list
	detailFieldBytes = 64 << 10 // per field, in one run's detail
)

// boundedEntry is an entry as the API answers it: "_cut" says what of it
// was left out.
type boundedEntry struct {
	store.Entry
	Cut []string `json:"_cut,omitempty"`
}

// bounded cuts e's argv and directory to max bytes each.
func bounded(e store.Entry, max int) boundedEntry {
	b := boundedEntry{Entry: e}
	if n := len(e.Cwd); n > max {
		b.Cwd = textclip.String(e.Cwd, max)
		b.Cut = append(b.Cut, fmt.Sprintf("cwd: the first %d of %d bytes", max, n))
	}
	if argv, cut := cutArgv(e.Argv, max); cut != "" {
		b.Argv, b.Cut = argv, append(b.Cut, cut)
	}
	return b
}

// cutArgv cuts argv to about max bytes, saying what was left out ("" when
// nothing was). An argument costs its bytes and about three of JSON
// ("",): a million empty ones are megabytes too.
func cutArgv(argv []string, max int) ([]string, string) {
	total := 0
	for _, a := range argv {
		total += len(a) + 3
	}
	if total <= max {
		return argv, ""
	}
	var kept []string
	left := max
	for _, a := range argv {
		if left <= 0 {
			break
		}
		kept = append(kept, textclip.String(a, left))
		left -= len(a) + 3
	}
	return kept, fmt.Sprintf("argv: %d of %d arguments, about %d of %d bytes", len(kept), len(argv), max, total)
}
