package store

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/triage-dev/triage/internal/identity"
)

func ids(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

// TestOutputsBelongToTheirIdentity: an output is found, listed, paged,
// searched and served from the cache only for the identity that created it
// and for one that sees everything; to another it is unknown, in the same
// words as an id that never existed.
func TestOutputsBelongToTheirIdentity(t *testing.T) {
	s := open(t, ":memory:", Options{})
	alice := identity.With(context.Background(), identity.Caller{ID: "token:a"})
	bob := identity.With(context.Background(), identity.Caller{ID: "token:b"})
	admin := context.Background()
	a, err := s.Put(alice, Meta{Tool: "run"}, "secret of alice\n", Final{Status: "success"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Put(bob, Meta{Tool: "run"}, "bob's line\n", Final{Status: "success"})
	if err := s.CachePut(alice, "k", a); err != nil {
		t.Fatal(err)
	}

	_, errBob := s.Info(bob, a)
	_, errNone := s.Info(bob, "o-0000000000")
	if !errors.Is(errBob, ErrNotFound) {
		t.Fatalf("bob reading alice's output: %v, want not found", errBob)
	}
	if want := notFound(a).Error(); errBob.Error() != want || errNone.Error() != notFound("o-0000000000").Error() {
		t.Errorf("not found for another's output %q differs from an unknown id's %q", errBob, want)
	}
	if _, err := s.Page(bob, a, 0, 10); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob paging alice's output: %v", err)
	}
	if _, err := s.Search(bob, Query{ID: a, Pattern: "secret"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob searching alice's output: %v", err)
	}
	if res, err := s.Search(bob, Query{Pattern: "secret|bob"}); err != nil || res.Total != 1 || res.Matches[0].ID != b {
		t.Errorf("bob searching recent outputs: %+v %v, want only his own line", res, err)
	}
	if l, _ := s.List(bob, 10); !slices.Equal(ids(l), []string{b}) {
		t.Errorf("bob's list: %v, want [%s]", ids(l), b)
	}
	if _, ok, _ := s.CacheGet(bob, "k"); ok {
		t.Error("bob served alice's cached output")
	}
	if s.Visible(bob)(a) || !s.Visible(alice)(a) || s.Visible(admin) != nil {
		t.Error("Visible: want alice's output visible to alice only")
	}

	if p, err := s.Page(alice, a, 0, 10); err != nil || p.Lines[0] != "secret of alice" {
		t.Errorf("alice paging her output: %+v %v", p, err)
	}
	if id, ok, _ := s.CacheGet(alice, "k"); !ok || id != a {
		t.Errorf("alice's cache: %q %v", id, ok)
	}
	if l, _ := s.List(admin, 10); len(l) != 2 {
		t.Errorf("the server's own identity lists %v, want both", ids(l))
	}
	if _, err := s.Page(admin, a, 0, 10); err != nil {
		t.Errorf("the server's own identity paging alice's output: %v", err)
	}
}

// TestMigrateIdentity: a database made before outputs had an identity opens,
// its outputs belong to the server's own identity (not to a token's), and
// new outputs record theirs.
func TestMigrateIdentity(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	s := open(t, path, Options{})
	old, _ := s.Put(ctx, Meta{Tool: "run"}, "a\n", Final{Status: "success"})
	if _, err := s.db.Exec(`ALTER TABLE outputs DROP COLUMN identity`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, path, Options{})
	bob := identity.With(ctx, identity.Caller{ID: "token:b"})
	if _, err := s.Info(ctx, old); err != nil {
		t.Fatalf("old output for the server's identity: %v", err)
	}
	if _, err := s.Info(bob, old); !errors.Is(err, ErrNotFound) {
		t.Fatalf("old output for a token's identity: %v, want not found", err)
	}
	id, err := s.Put(bob, Meta{Tool: "run"}, "b\n", Final{})
	if err != nil {
		t.Fatalf("insert after migration: %v", err)
	}
	if _, err := s.Info(bob, id); err != nil {
		t.Fatalf("bob's new output: %v", err)
	}
}
