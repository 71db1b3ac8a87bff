package coredump

import (
	"os"
	"reflect"
	"testing"
	"time"
)

// TestPlacesQuery: a listing looks in triage's own directory, the project
// and where programs ran, each once, and in the kept cores.
func TestPlacesQuery(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	p := Places{ProjectDir: "/p", Ran: []string{"/a", "", "/p", wd, "/a", "/b"}, Kept: "/store/cores"}
	q := p.Query("prog", time.Hour, 7)
	if want := []string{wd, "/p", "/a", "/b"}; !reflect.DeepEqual(q.Dirs, want) {
		t.Errorf("dirs %v, want %v", q.Dirs, want)
	}
	if q.Process != "prog" || q.Limit != 7 || q.Kept != "/store/cores" || time.Since(q.Since) < time.Hour || time.Since(q.Since) > 2*time.Hour {
		t.Errorf("query %+v", q)
	}
	if q := (Places{}).Query("", 0, 0); !q.Since.IsZero() {
		t.Errorf("no since, yet %v", q.Since)
	}
}
