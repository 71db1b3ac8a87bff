package defaults

import (
	"context"
	"testing"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/identity"
)

// TestBookKeepsEachIdentitysDefaults: identities start from the configured
// profiles; what one sets, clears or activates stays its own; only the
// server's own identity may persist.
func TestBookKeepsEachIdentitysDefaults(t *testing.T) {
	b, err := NewBook(map[string]Values{DefaultProfile: {ProjectDir: "/configured"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	own := context.Background()
	alice := identity.With(own, identity.Caller{ID: "token:a"})
	bob := identity.With(own, identity.Caller{ID: "token:b"})
	if _, err := b.For(alice).Set("", Values{Env: map[string]string{"DB_URL": "postgres://alice:pw@db"}}); err != nil {
		t.Fatal(err)
	}
	if err := b.For(alice).Use("ci"); err != nil {
		t.Fatal(err)
	}
	if v := b.For(bob).Get(DefaultProfile); v.Env != nil || v.ProjectDir != "/configured" {
		t.Errorf("bob's defaults: %+v, want the configured ones only", v)
	}
	if a := b.For(bob).Active(); a != DefaultProfile {
		t.Errorf("bob's active profile: %s", a)
	}
	if v := b.For(own).Get(DefaultProfile); v.Env != nil {
		t.Errorf("the server's defaults hold alice's env: %+v", v)
	}
	if v := b.For(alice).Get(DefaultProfile); v.Env["DB_URL"] == "" || v.ProjectDir != "/configured" {
		t.Errorf("alice's defaults: %+v", v)
	}
	if err := b.MayPersist(alice); fault.KindOf(err) != fault.KindUsage {
		t.Errorf("alice persisting: %v, want a usage error", err)
	}
	if err := b.MayPersist(own); err != nil {
		t.Errorf("the server's identity persisting: %v", err)
	}
}
