package defaults

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/fault"
)

func manyEnv(n int, prefix string) map[string]string {
	env := make(map[string]string, n)
	for i := range n {
		env[fmt.Sprintf("%s%d", prefix, i)] = "1"
	}
	return env
}

// TestDefaultsBounded: an env of 450,000 keys is refused with a usage error
// that names the bound, and nothing of it is kept, so no later show answers
// it; calls each within the bounds whose sum is not are refused at the one
// that crosses; so are a long name and an env over 2 MiB.
func TestDefaultsBounded(t *testing.T) {
	b, err := NewBook(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = b.Update(ctx, "", Values{Env: manyEnv(450_000, "K")}, nil, nil)
	if !fault.Is(err, fault.KindUsage) || !strings.Contains(err.Error(), fmt.Sprintf("450000 variables, over the bound of %d", MaxEnvKeys)) {
		t.Errorf("450,000 env keys: %v, want a usage error naming the bound", err)
	}
	if v, err := b.Show(ctx, ""); err != nil || !v.Values.IsZero() {
		t.Errorf("after the refusal the profile holds %d env keys (%v)", len(v.Values.Env), err)
	}

	part := MaxEnvKeys * 3 / 4
	if _, err := b.Update(ctx, "", Values{Env: manyEnv(part, "A")}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Update(ctx, "", Values{Env: manyEnv(part, "B")}, nil, nil); !fault.Is(err, fault.KindUsage) || !strings.Contains(err.Error(), fmt.Sprintf("%d variables", 2*part)) {
		t.Errorf("%d then %d more: %v, want a usage error", part, part, err)
	}
	if v, _ := b.Show(ctx, ""); len(v.Values.Env) != part {
		t.Errorf("the refused call changed the profile: %d env keys, want %d", len(v.Values.Env), part)
	}

	for what, env := range map[string]map[string]string{
		"a long name": {strings.Repeat("N", MaxEnvNameBytes+1): "1"},
		"3 MiB":       {"A": strings.Repeat("x", 1<<20), "B": strings.Repeat("x", 1<<20), "C": strings.Repeat("x", 1<<20)},
	} {
		if _, err := b.Update(ctx, "other", Values{Env: env}, nil, nil); !fault.Is(err, fault.KindUsage) || !strings.Contains(err.Error(), "over the bound of") {
			t.Errorf("%s: %v, want a usage error", what, err)
		}
	}
}
