package webui

import (
	"net/http"
	"slices"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/store"
)

// process is a background process as the Sessions page shows it.
type process struct {
	ID       string    `json:"id"`
	Argv     []string  `json:"argv"`
	Dir      string    `json:"dir,omitempty"`
	Host     string    `json:"host,omitempty"`
	Pid      int       `json:"pid"`
	Started  time.Time `json:"started"`
	OutputID string    `json:"output_id"`
	Running  bool      `json:"running"`
	Verdict  string    `json:"verdict,omitempty"`
	Status   string    `json:"status,omitempty"`
	// Cut says what of argv and dir was left out: they are the client's,
	// and the list is answered whole on every change (see bounded).
	Cut []string `json:"_cut,omitempty"`
}

// dump is a dump session as the Sessions page shows it.
type dump struct {
	ID string `json:"id"`
	// Kind is "kernel vmcore" or "process core"; Format the file's
	// (vmcore, kdump-compressed, core, ...) when it was read here.
	Kind    string                  `json:"kind"`
	Format  string                  `json:"format,omitempty"`
	Dump    string                  `json:"dump"`
	Program string                  `json:"program,omitempty"`
	Host    string                  `json:"host,omitempty"`
	Opened  time.Time               `json:"opened"`
	Engines []postmortem.EngineInfo `json:"engines"`
	// History are the commands run on it, newest first.
	History []postmortem.Command `json:"history"`
}

// sessions answers the caller's debug sessions, dump sessions and
// background processes, without starting any manager a call has not and
// without sending a debugger or engine anything: what the managers hold.
func (u *UI) sessions(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	out := struct {
		Debug     []debugger.Overview `json:"debug"`
		Dumps     []dump              `json:"dumps"`
		Processes []process           `json:"processes"`
	}{Debug: u.svc.DebugOverviews(ctx), Dumps: []dump{}, Processes: []process{}}
	if out.Debug == nil {
		out.Debug = []debugger.Overview{}
	}
	for _, s := range u.svc.DumpSessions(ctx) {
		out.Dumps = append(out.Dumps, dumpOf(s))
	}
	for _, j := range u.svc.JobList(ctx) {
		p := process{ID: j.ID, Dir: j.Dir, Host: j.Host, Pid: j.Pid, Started: j.Started, OutputID: j.OutputID, Running: true}
		b := bounded(store.Entry{Meta: store.Meta{Argv: j.Argv, Cwd: j.Dir}}, listFieldBytes)
		p.Argv, p.Dir, p.Cut = b.Argv, b.Cwd, b.Cut
		if o := j.Outcome(); o != nil {
			p.Running, p.Verdict, p.Status = false, o.Verdict.Line, string(o.Verdict.Status)
		}
		out.Processes = append(out.Processes, p)
	}
	writeJSON(w, out)
}

// dumpOf describes a dump session for the page.
func dumpOf(s *postmortem.Session) dump {
	d := dump{ID: s.ID, Kind: "process core", Dump: s.Target.Core, Program: s.Target.Program,
		Host: s.Target.SSHHost, Opened: s.Opened, Engines: s.EngineInfos(), History: s.History()}
	if s.Target.Kernel {
		d.Kind, d.Dump, d.Program = "kernel vmcore", s.Target.Vmcore, s.Target.Vmlinux
	}
	if s.Dump != nil {
		d.Format = string(s.Dump.Kind)
	}
	if d.History == nil {
		d.History = []postmortem.Command{}
	}
	slices.Reverse(d.History)
	return d
}

// processOutput answers a background process's output from a line cursor,
// waiting up to wait_ms (at most 10 s) for new lines while it runs: the
// page's live tail.
func (u *UI) processOutput(w http.ResponseWriter, r *http.Request) {
	cursor, err := intParam(r, "cursor", 0)
	if err != nil {
		fail(w, err)
		return
	}
	wait, err := intParam(r, "wait_ms", 0)
	if err != nil {
		fail(w, err)
		return
	}
	jobs, err := u.svc.Jobs(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	p, err := jobs.Output(r.Context(), r.PathValue("id"), cursor, 500, min(time.Duration(wait)*time.Millisecond, 10*time.Second))
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, view(p, nil))
}
