package capture_test

import (
	"context"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/spawn"
)

// RunStored stores the output, the verdict and the answer the caller
// renders from the outcome and what the capture kept.
func TestRunStoredKeepsAnswerWithVerdict(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	var seen capture.Result
	res, err := capture.RunStored(ctx, capture.StoredRun{Tool: "run", Store: st, Budget: 4096,
		Request: capture.Request{Spec: spawn.Spec{Argv: []string{"sh", "-c", "echo one; echo two; exit 3"}}},
		Answer: func(o *capture.Outcome, cr capture.Result) any {
			seen = cr
			return map[string]any{"exit": o.Result.ExitCode}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil || res.Lines != 2 || seen.ID != res.ID || !strings.Contains(seen.Excerpt.Text, "two") {
		t.Fatalf("result %+v, answer saw %+v", res, seen)
	}
	e, err := st.Info(ctx, res.ID)
	if err != nil || e.ExitCode == nil || *e.ExitCode != 3 || e.VerdictLine == "" {
		t.Fatalf("entry %+v, %v: want exit 3 and a verdict", e, err)
	}
	if ans, err := st.Result(ctx, res.ID); err != nil || string(ans) != `{"exit":3}` {
		t.Errorf("stored answer %s, %v", ans, err)
	}
}

// A program that cannot start is the caller's mistake, said specifically,
// and no answer is rendered.
func TestRunStoredStartFailureIsUsage(t *testing.T) {
	st, _ := openStore(t)
	_, err := capture.RunStored(context.Background(), capture.StoredRun{Tool: "run", Store: st, Budget: 4096,
		Request: capture.Request{Spec: spawn.Spec{Argv: []string{"/nonexistent/prog"}}},
		Answer: func(*capture.Outcome, capture.Result) any {
			t.Error("answer rendered for a run that never started")
			return nil
		}})
	if !fault.Is(err, fault.KindUsage) || !strings.Contains(err.Error(), "/nonexistent/prog") {
		t.Fatalf("error %v: want a usage error naming the program", err)
	}
}
