package scratch

import (
	"os"
	"path/filepath"
	"testing"
)

// A room is made ahead of the Take that hands it out; without one, Take
// names a new room for its caller to make. Close removes the room made
// ahead and leaves the directory.
func TestRoomsAreMadeAhead(t *testing.T) {
	dir := t.TempDir()
	r := NewRooms(dir)
	first, made := r.Take()
	if made || filepath.Dir(first) != dir {
		t.Fatalf("first Take: %s, made %v; want a new name in %s to make", first, made, dir)
	}
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Fatalf("a room Take only names exists: %v", err)
	}
	r.MakeAhead()
	r.MakeAhead() // one room ahead, not two
	r.making.Wait()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("after MakeAhead the directory holds %v; want one room", entries)
	}
	second, made := r.Take()
	if st, err := os.Stat(second); !made || err != nil || !st.IsDir() || second == first {
		t.Fatalf("second Take: %s, made %v (%v); want the room made ahead", second, made, err)
	}
	if third, made := r.Take(); made || third == second {
		t.Errorf("a room was handed out twice: %s, made %v", third, made)
	}
	os.Remove(second)
	r.MakeAhead()
	r.Close()
	r.MakeAhead() // closed: makes none
	r.making.Wait()
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("after Close the directory holds %v (%v); want it empty", entries, err)
	}
}

// A room made ahead and then removed by someone else is not handed out.
func TestRoomsSkipARemovedRoom(t *testing.T) {
	dir := t.TempDir()
	r := NewRooms(dir)
	r.MakeAhead()
	r.making.Wait()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("no room made ahead: %v", entries)
	}
	os.Remove(filepath.Join(dir, entries[0].Name()))
	if path, made := r.Take(); made {
		t.Errorf("Take handed out %s, a room no longer there", path)
	}
}
