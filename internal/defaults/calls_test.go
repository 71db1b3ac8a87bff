package defaults

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/triage-dev/triage/internal/fault"
)

// TestSessionCalls: Update validates, gates workflows and persists through
// its Saver; Use reports the shown workflows' change; the echo masks
// secrets and lists keys in order.
func TestSessionCalls(t *testing.T) {
	b, err := NewBook(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	gate := Gate(func(names []string) error {
		if slices.Contains(names, "nope") {
			return errors.New("nope: no such workflow")
		}
		return nil
	})
	if _, err := b.Update(ctx, "", Values{}, gate, nil); !fault.Is(err, fault.KindUsage) {
		t.Errorf("empty update: %v, want a usage error", err)
	}
	if _, err := b.Update(ctx, "", Values{DebuggerBackend: "gdb"}, gate, nil); !fault.Is(err, fault.KindUsage) {
		t.Errorf("bad backend: %v, want a usage error", err)
	}
	if _, err := b.Update(ctx, "", Values{Workflows: []string{"nope"}}, gate, nil); !fault.Is(err, fault.KindUsage) {
		t.Errorf("unknown workflow: %v, want a usage error", err)
	}
	var saved Values
	save := func(profile string, v Values) (string, error) { saved = v; return "/cfg.yaml", nil }
	v, err := b.Update(ctx, "ci", Values{Env: map[string]string{"B": "1", "A": "2"}, Workflows: []string{"device"}}, gate, save)
	if err != nil {
		t.Fatal(err)
	}
	if v.Persisted != "/cfg.yaml" || saved.Env["A"] != "2" || v.ShownChanged {
		t.Errorf("update of an inactive profile: %+v (saved %+v)", v, saved)
	}
	if got, want := v.Values.Lines(), []string{"env: A=2 B=1", "workflows: device"}; !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
	if v, err = b.Use(ctx, "ci", gate); err != nil || !v.ShownChanged || !slices.Equal(v.Shown, []string{"device"}) {
		t.Errorf("use ci: %+v, %v; want the device workflow newly shown", v, err)
	}
}
