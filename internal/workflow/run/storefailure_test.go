package run_test

import (
	"context"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// connectBrokenStore connects a client whose output store cannot store a
// byte (mcptest.Client.BreakStore).
func connectBrokenStore(t *testing.T) *mcptest.Client {
	t.Helper()
	c := mcptest.Connect(t, nil)
	c.BreakStore()
	return c
}

func TestRunStoreFailure(t *testing.T) {
	c := connectBrokenStore(t)
	r := c.Call("run", map[string]any{"program": "seq", "args": []string{"1", "3"}})
	r.CheckNotStoredWhole(t, "SUCCEEDED")
	// The excerpt does not depend on the store: the output is still shown.
	if !strings.Contains(r.Text, "3\n") {
		t.Errorf("the output is missing from the text:\n%s", r.Text)
	}
}

func TestTestStoreFailure(t *testing.T) {
	needTool(t, "go", "golang-go")
	c := connectBrokenStore(t)
	dir := nativeprojects.Write(t, map[string]string{"go.mod": goModule["go.mod"], "pass/pass_test.go": goModule["pass/pass_test.go"]})
	r := c.Call("test", map[string]any{"project_dir": dir})
	r.CheckNotStoredWhole(t, "TESTS PASSED")
}

func TestProcessStopStoreFailure(t *testing.T) {
	c := connectBrokenStore(t)
	start := c.Call("process_start", map[string]any{"program": "echo", "args": []string{"hello"}})
	if start.IsError {
		t.Fatal(start.Text)
	}
	// Stop it once it has printed and ended, so that there was output to
	// store (a stop before echo writes would store nothing, and fail nothing).
	m, err := c.Svc.Jobs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	j, err := m.Get(context.Background(), start.Out["id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	<-j.Done()
	r := c.Call("process_stop", map[string]any{"id": start.Out["id"]})
	r.CheckNotStoredWhole(t, "SUCCEEDED")
}
