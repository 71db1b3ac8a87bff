package postmortem

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/identity"
)

// TestSessionsBelongToTheirIdentity: one dump opened by two identities is
// two sessions, each shared only within its identity; another identity's
// session is unknown to Get and Close (the same error as an id that never
// existed) and left out of List; the server's own identity reaches both.
func TestSessionsBelongToTheirIdentity(t *testing.T) {
	exe, core := makeCore(t, "segv")
	m := NewManager(Options{WorkRoot: t.TempDir(), CommandTimeout: 30 * time.Second})
	t.Cleanup(func() { m.CloseAll() })
	alice := identity.With(context.Background(), identity.Caller{ID: "token:a"})
	bob := identity.With(context.Background(), identity.Caller{ID: "token:b"})
	a, _, err := m.Open(alice, Target{Core: core, Program: exe})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Get(bob, ""); !errors.Is(err, ErrNoSession) {
		t.Errorf("bob's current dump: %v, want none", err)
	}
	_, unknown := m.Get(bob, "dump-000000000000")
	for name, err := range map[string]error{
		"get":   func() error { _, err := m.Get(bob, a.ID); return err }(),
		"close": func() error { _, _, err := m.Close(bob, a.ID); return err }(),
	} {
		if want := strings.ReplaceAll(unknown.Error(), "dump-000000000000", a.ID); err == nil || err.Error() != want {
			t.Errorf("bob's %s of alice's session: %v, want %q", name, err, want)
		}
	}
	if l := m.List(bob); len(l) != 0 {
		t.Errorf("bob lists %d sessions", len(l))
	}
	b, reused, err := m.Open(bob, Target{Core: core, Program: exe})
	if err != nil || reused || b == a || b.ID == a.ID {
		t.Fatalf("bob opening the same core: %v, reused %v, same session %v", err, reused, b == a)
	}
	if a.Refs() != 1 {
		t.Errorf("alice's session has %d references after bob's open", a.Refs())
	}
	if again, reused, _ := m.Open(alice, Target{Core: core, Program: exe}); !reused || again != a {
		t.Error("alice reopening her core: want her session shared")
	}
	if got, err := m.Get(alice, ""); err != nil || got != a {
		t.Errorf("alice's current session: %v", err)
	}
	if l := m.List(context.Background()); len(l) != 2 {
		t.Errorf("the server's identity lists %d sessions, want 2", len(l))
	}
	if got, err := m.Get(context.Background(), a.ID); err != nil || got != a {
		t.Errorf("the server's identity getting alice's session: %v", err)
	}
}
