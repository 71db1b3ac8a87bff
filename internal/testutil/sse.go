package testutil

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"
)

// EventArrivals opens the web page's event stream at base and returns the
// arrival time of each event named name, once the stream has said it is
// ready. The stream closes at the test's end.
func EventArrivals(tb testing.TB, c *http.Client, base, name string) <-chan time.Time {
	tb.Helper()
	resp, err := c.Get(base + "/ui/api/events")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { resp.Body.Close() })
	arrivals := make(chan time.Time, 1024)
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			switch event, _ := strings.CutPrefix(sc.Text(), "event: "); event {
			case "ready":
				close(ready)
			case name:
				arrivals <- time.Now()
			}
		}
	}()
	<-ready
	return arrivals
}

// Quiet drains arrivals until none has come for d.
func Quiet(arrivals <-chan time.Time, d time.Duration) {
	for {
		select {
		case <-arrivals:
		case <-time.After(d):
			return
		}
	}
}
