package webui

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// BenchmarkSessionEvent measures how long after a debug session's stop an
// open page hears of it: from the stop as the backend recorded it (its
// At, when the adapter's stopped event came) to the arrival, at the
// page's event stream, of the "sessions" event on which the page's reload
// shows that stop with its frames: the Manager's look at them and its
// OnChange included. Two ways: a continue that waits for the stop
// (wait-…: the call's end looks and tells), and one that returns at once
// (told-…: the adapter's report of the stop, while no call runs, tells
// the Manager; the stream's 150 ms between events included, since the
// continue itself was an event just before). The target stops at libc's
// write, which bigoutput calls in a loop. Target: 1 s at most, the worst
// of the iterations included (…-max-ms).
func BenchmarkSessionEvent(b *testing.B) {
	u, base, c, _ := serveUI(b)
	ctx := context.Background()
	m := u.svc.Debugger()
	info, err := m.Launch(ctx, "", debugger.LaunchSpec{Program: crashers.Build(b, "bigoutput"), Args: []string{"1099511627776"},
		Breakpoints: []debugger.BreakpointSpec{{Function: "write"}}})
	if err != nil {
		b.Fatal(err)
	}
	be, err := m.Backend(ctx, info.ID)
	if err != nil {
		b.Fatal(err)
	}
	if st, err := be.WaitStop(ctx, 20*time.Second); err != nil || st.Status != debugger.StatusStopped {
		b.Fatalf("no first stop: %+v %v", st, err)
	}
	arrivals := testutil.EventArrivals(b, c, base, "sessions")
	lat := [2][]time.Duration{}
	for b.Loop() {
		for i, wait := range []time.Duration{20 * time.Second, 0} {
			b.StopTimer()
			testutil.Quiet(arrivals, 300*time.Millisecond) // the last stop's events are all in
			b.StartTimer()
			before := be.State().LastStop.At
			if _, err := be.Continue(ctx, debugger.ContinueOptions{Wait: wait}); err != nil {
				b.Fatal(err)
			}
			lat[i] = append(lat[i], untilStopShown(b, c, base, before, arrivals))
		}
	}
	for i, name := range []string{"wait", "told"} {
		d := lat[i]
		b.ReportMetric(float64(testutil.Median(d).Microseconds())/1000, name+"-ms")
		b.ReportMetric(float64(d[len(d)-1].Microseconds())/1000, name+"-max-ms") // medianOf sorted d
	}
	b.ReportMetric(0, "ns/op")
}

// untilStopShown waits for the first "sessions" event on which the page
// shows a stop after the one at before, with its frames, and returns the
// time from that stop to the event's arrival.
func untilStopShown(b *testing.B, c *http.Client, base string, before time.Time, arrivals <-chan time.Time) time.Duration {
	b.Helper()
	bound := time.After(20 * time.Second) // only ends a run that cannot pass
	for {
		select {
		case a := <-arrivals:
			var page struct {
				Debug []debugger.Overview `json:"debug"`
			}
			if code := getJSON(b, c, base+"/ui/api/sessions", &page); code != 200 || len(page.Debug) != 1 {
				b.Fatalf("sessions: %d %+v", code, page)
			}
			o := page.Debug[0]
			if stop := o.State.LastStop; stop != nil && stop.At.After(before) && len(o.Frames) > 0 {
				return a.Sub(stop.At)
			}
		case <-bound:
			b.Fatal("no event showed the next stop with its frames within 20 s")
		}
	}
}
