package catalog

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type unlistedArgs struct {
	Dir    string `json:"dir,omitempty"`
	Scheme string `json:"scheme,omitempty"`
	Alias  string `json:"alias,omitempty"`
}

type echoed struct {
	Got unlistedArgs `json:"got"`
}

// listAndCall registers tool on a server whose enabled workflows are enabled,
// and returns the tool's advertised input properties and its structured
// output for args.
func listAndCall(t *testing.T, tool *Tool, enabled map[string]bool, args map[string]any) (props map[string]any, out echoed) {
	t.Helper()
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "t"}, nil)
	RegisterAll(s, []*Tool{tool}, func(id string) bool { return enabled[id] }, Limits{})
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(list.Tools[0].InputSchema)
	var schema map[string]any
	json.Unmarshal(raw, &schema)
	if _, ok := schema["additionalProperties"]; ok {
		t.Errorf("advertised schema repeats additionalProperties: %s", raw)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &out)
	props, _ = schema["properties"].(map[string]any)
	return props, out
}

func TestUnlistedFieldsAreHiddenButAccepted(t *testing.T) {
	newTool := func() *Tool {
		return New("probe", "probe", Annotations{ReadOnly: true}, func(ctx context.Context, c *Call, in unlistedArgs) (Result[echoed], error) {
			return Result[echoed]{Text: "ok", Output: echoed{Got: in}}, nil
		}).Unlisted("apple", "scheme").Unlisted("", "alias")
	}
	args := map[string]any{"dir": "d", "scheme": "S", "alias": "a"}

	props, out := listAndCall(t, newTool(), nil, args)
	if _, ok := props["dir"]; !ok || len(props) != 1 {
		t.Errorf("without workflow apple, listed %v; want only dir", props)
	}
	if out.Got != (unlistedArgs{Dir: "d", Scheme: "S", Alias: "a"}) {
		t.Errorf("unlisted arguments were not passed through: %+v", out.Got)
	}

	props, _ = listAndCall(t, newTool(), map[string]bool{"apple": true}, args)
	if _, ok := props["scheme"]; !ok || len(props) != 2 {
		t.Errorf("with workflow apple, listed %v; want dir and scheme", props)
	}

	// A misspelt argument is still refused: validation uses the full schema.
	tool := newTool()
	if err := tool.decode(json.RawMessage(`{"shceme":"S"}`), new(unlistedArgs)); err == nil {
		t.Error("an unknown argument was accepted")
	}
}

func TestUnlistedUnknownFieldPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Unlisted accepted a field the input does not have")
		}
	}()
	New("probe", "probe", Annotations{}, func(ctx context.Context, c *Call, in unlistedArgs) (Result[echoed], error) {
		return Result[echoed]{}, nil
	}).Unlisted("", "nope").InputSchema()
}
