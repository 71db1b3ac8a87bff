package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/shellcmd"
)

// callArguments are the tool's arguments: --json's object, with the
// --KEY VALUE pairs converted by the types of the tool's input schema
// (schema is asked only when there are pairs).
func callArguments(schema func() (map[string]any, error), jsonArgs string, pairs [][2]string) (map[string]any, error) {
	arguments := map[string]any{}
	if jsonArgs != "" {
		if err := json.Unmarshal([]byte(jsonArgs), &arguments); err != nil {
			return nil, usagef("--json: %v (want a JSON object such as '{\"program\": \"./a.out\"}')", err)
		}
	}
	if len(pairs) > 0 {
		props, err := schema()
		if err != nil {
			return nil, err
		}
		if err := applyPairs(arguments, pairs, props); err != nil {
			return nil, err
		}
	}
	return arguments, nil
}

// callTool calls the tool, showing its progress on pp when there is one.
func callTool(ctx context.Context, client *mcp.ClientSession, tool string, arguments map[string]any, pp *progressPrinter) (*mcp.CallToolResult, error) {
	params := &mcp.CallToolParams{Name: tool, Arguments: arguments}
	if pp != nil {
		params.SetProgressToken("cli")
	}
	res, err := client.CallTool(ctx, params)
	if pp != nil {
		pp.done()
	}
	if err != nil && strings.Contains(err.Error(), "unknown tool") {
		var names []string
		for t, err := range client.Tools(ctx, nil) {
			if err != nil {
				break
			}
			names = append(names, t.Name)
		}
		return nil, unknownTool(tool, names, "`triage tools` lists the enabled tools")
	}
	return res, err
}

// cmdCall runs one tool through the same handlers as MCP and prints its
// result: through the daemon when one is up, or when the tool keeps state
// (which starts it), else in-process.
func cmdCall(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(stdout, callUsage)
			return exitOK, nil
		}
		return 0, usagef("name the tool: %s", callUsage)
	}
	tool, rest := args[0], args[1:]
	if wantsHelp(rest) {
		return exitOK, toolHelp(tool, stdout, stderr)
	}
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	var g globals
	g.register(fs)
	jsonArgs := fs.String("json", "", "tool arguments as a JSON object")
	output := fs.String("output", "text", "print the result as text or json")
	known, pairs, err := splitCallArgs(fs, rest)
	if err != nil {
		return 0, err
	}
	if err := parseFlags(fs, known, stderr); err != nil {
		return 0, err
	}
	if *output != "text" && *output != "json" {
		return 0, usagef("--output %q: use text or json", *output)
	}
	pp := newProgressPrinter(stderr, tool)
	var onProgress func(*mcp.ProgressNotificationParams)
	if pp != nil {
		onProgress = pp.show
		defer pp.done()
	}
	c, err := g.client(ctx, tool, stderr, onProgress)
	if err != nil {
		return 0, err
	}
	defer c.close()
	arguments, err := callArguments(c.schema(ctx, tool, pairKeys(pairs), g, stderr), *jsonArgs, pairs)
	if err != nil {
		return 0, err
	}
	res, err := callTool(ctx, c.session, tool, arguments, pp)
	if err != nil {
		return 0, err
	}
	if err := printResult(stdout, res, *output); err != nil {
		return 0, err
	}
	if *output == "text" {
		fmt.Fprint(stdout, c.note(ctx, tool, arguments, exitCode(res)))
	}
	return exitCode(res), nil
}

// toolHelp prints `triage TOOL --help`, from the catalog of this machine
// (every tool, also one not available here, says so).
func toolHelp(tool string, stdout, stderr io.Writer) error {
	g := globals{logLevel: "error"}
	srv, svc, err := g.newServer(stderr, false)
	if err != nil {
		return err
	}
	defer svc.Close()
	all := srv.Catalog.SelectAll()
	return writeToolHelp(stdout, srv.Selection, all, tool)
}

const callUsage = `triage call TOOL [--json '{...}'] [--KEY VALUE ...] [--output text|json]
  triage call TOOL --help describes the tool: its arguments, defaults and examples.
  --KEY VALUE sets one argument; VALUE is read by the argument's type (numbers,
  true/false, JSON for objects); repeat --KEY for arrays, or pass a JSON array
  (--command '["meson","test","-C","build"]').`

// bareSwitch is the value of a --KEY followed by another flag or nothing:
// true for a boolean argument, a usage error for any other (`run --program`
// alone ran /bin/true).
const bareSwitch = "\x00switch"

// splitCallArgs separates the call command's own flags from --KEY VALUE tool
// arguments.
func splitCallArgs(fs *flag.FlagSet, args []string) (known []string, pairs [][2]string, err error) {
	bare := false // a JSON object given as an argument: the --json value
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(strings.TrimSpace(a), "{") {
			if bare {
				return nil, nil, usagef("unexpected argument %q: give one JSON object of arguments (or --json '{...}'), or each one as --KEY VALUE", a)
			}
			bare = true
			known = append(known, "--json", a)
			continue
		}
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return nil, nil, usagef("unexpected argument %q: tool arguments are --KEY VALUE pairs, or one JSON object (--json '{...}')", a)
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if fs.Lookup(name) != nil || name == "h" || name == "help" {
			known = append(known, a)
			if !hasValue && name != "h" && name != "help" && i+1 < len(args) {
				known = append(known, args[i+1])
				i++
			}
			continue
		}
		if !hasValue {
			// A key followed by another flag or nothing is a boolean switch.
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
				value = args[i+1]
				i++
			} else {
				value = bareSwitch
			}
		}
		pairs = append(pairs, [2]string{name, value})
	}
	return known, pairs, nil
}

// inputSchema returns the properties of a tool's whole input schema, fields
// that tools/list leaves unlisted included.
func inputSchema(sel *catalog.Selection, tool string) (map[string]any, error) {
	for _, t := range sel.Tools {
		if t.Name == tool {
			return schemaProperties(t.InputSchema())
		}
	}
	if reason, ok := sel.Absent[tool]; ok {
		return nil, usagef("%s", reason)
	}
	names := make([]string, 0, len(sel.Tools))
	for _, t := range sel.Tools {
		names = append(names, t.Name)
	}
	return nil, unknownTool(tool, names, "`triage tools` lists the enabled tools")
}

// unknownTool is the usage error for a tool name not among names, with a
// did-you-mean when one is close.
func unknownTool(tool string, names []string, hint string) error {
	if near := catalog.Misspelt(tool, names); near != "" {
		return usagef("unknown tool %q: did you mean %q? %s", tool, near, hint)
	}
	return usagef("unknown tool %q; %s", tool, hint)
}

// schemaProperties are the properties of an input schema, as JSON values.
func schemaProperties(schema any) (map[string]any, error) {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return s.Properties, nil
}

// applyPairs converts each --KEY VALUE by the schema type of KEY. A KEY the
// tool does not take, or a VALUE that is not of KEY's type, is passed on as
// given: the tool refuses it by the rule that words every argument error
// (the names it takes, the type it expects), as it would over MCP. A VALUE
// that is meant as JSON (an array's or object's, or one of an argument of
// any type, such as command's argv) and is not valid JSON is refused here,
// naming the argument and what is wrong with it.
func applyPairs(args map[string]any, pairs [][2]string, props map[string]any) error {
	for _, p := range pairs {
		key, raw := p[0], p[1]
		prop, known := props[key].(map[string]any)
		if raw == bareSwitch {
			if typ := schemaType(prop); known && typ != "boolean" {
				return usagef("--%s needs a value: --%s VALUE (or --%s=VALUE)", key, key, key)
			}
			raw = "true"
		}
		if !known {
			args[key] = raw
			continue
		}
		typ := schemaType(prop)
		v, ok, err := convertArg(typ, raw)
		if err != nil {
			return usagef("--%s %s", key, err)
		}
		if !ok {
			v = raw
		}
		if typ == "array" {
			if list, ok := v.([]any); ok {
				prev, _ := args[key].([]any)
				args[key] = append(prev, list...)
				continue
			}
		}
		args[key] = v
	}
	return nil
}

// schemaType is a property's JSON type: "type" as a string, or the one
// type beside "null" of a list; "" when the schema gives none (any).
func schemaType(prop map[string]any) string {
	switch t := prop["type"].(type) {
	case string:
		return t
	case []any:
		typ := ""
		for _, e := range t {
			if s, _ := e.(string); s != "null" {
				if typ != "" {
					return ""
				}
				typ = s
			}
		}
		return typ
	}
	return ""
}

// convertArg reads raw as a value of JSON type typ ("" for any); ok is
// false when it is not one. An array takes a JSON array, or raw as its one
// element (`--run '[Tt]est'` is a pattern); an object takes a JSON object,
// and an argument of any type (command's argv) a JSON array or object, else
// raw. err says why a raw meant as JSON is not valid JSON.
func convertArg(typ, raw string) (v any, ok bool, err error) {
	switch typ {
	case "integer":
		v, err = strconv.ParseInt(raw, 10, 64)
		return v, err == nil, nil
	case "number":
		v, err = strconv.ParseFloat(raw, 64)
		return v, err == nil, nil
	case "boolean":
		v, err = strconv.ParseBool(raw)
		return v, err == nil, nil
	case "array", "object", "":
	default:
		return raw, true, nil
	}
	open := strings.TrimSpace(raw)
	if open == "" || open[0] != '[' && open[0] != '{' {
		if typ == "array" {
			return []any{raw}, true, nil
		}
		return raw, typ == "", nil
	}
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		switch {
		case meantAsJSON(open):
			return nil, false, jsonArgError(open[0], err)
		case typ == "array":
			return []any{raw}, true, nil
		}
		return raw, typ == "", nil
	}
	_, isList := v.([]any)
	_, isObj := v.(map[string]any)
	return v, typ == "" || typ == "array" && isList || typ == "object" && isObj, nil
}

// meantAsJSON: t opens a JSON array or object with a string or a nested
// object (`["meson"`, `{"A":`), not a pattern such as "[Tt]est" or "{A".
func meantAsJSON(t string) bool {
	t = strings.TrimSpace(t[1:])
	return t != "" && strings.ContainsRune(`"{]}`, rune(t[0]))
}

// jsonArgError words a malformed JSON array or object, by its opening.
func jsonArgError(open byte, err error) error {
	if open == '{' {
		return fmt.Errorf(`is not a valid JSON object (%v): give one such as {"KEY": "VALUE"}`, err)
	}
	return fmt.Errorf(`is not a valid JSON array (%v): give one such as ["a", "b"]`, err)
}

// imageInfo describes an image of a result without its data: a terminal
// or a script reading --output json has no use for megabytes of base64,
// and the tool's text names the file it came from.
type imageInfo struct {
	MIMEType string `json:"mime_type"`
	Bytes    int    `json:"bytes"`
}

func printResult(w io.Writer, res *mcp.CallToolResult, format string) error {
	var images []imageInfo
	for _, c := range res.Content {
		if img, ok := c.(*mcp.ImageContent); ok {
			images = append(images, imageInfo{img.MIMEType, len(img.Data)})
		}
	}
	if format == "json" {
		b, err := json.MarshalIndent(struct {
			IsError bool        `json:"isError"`
			Outcome string      `json:"outcome"`
			Text    string      `json:"text"`
			Images  []imageInfo `json:"images,omitempty"`
			Output  any         `json:"output,omitempty"`
		}{res.IsError, outcomeOf(res), resultText(res), images, res.StructuredContent}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	}
	text := shellcmd.Rewrite(resultText(res))
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	for _, img := range images {
		text += fmt.Sprintf("[image: %s, %d bytes, not printed]\n", img.MIMEType, img.Bytes)
	}
	_, err := io.WriteString(w, text)
	return err
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func outcomeOf(res *mcp.CallToolResult) string {
	if o, ok := res.Meta[catalog.OutcomeKey].(string); ok {
		return o
	}
	if res.IsError {
		// Argument validation by the SDK happens before a handler runs.
		return string(catalog.UsageError)
	}
	return string(catalog.OK)
}

// exitCode maps a result to the CLI's exit status.
func exitCode(res *mcp.CallToolResult) int {
	switch catalog.Outcome(outcomeOf(res)) {
	case catalog.OK:
		return exitOK
	case catalog.UsageError:
		return exitUsage
	}
	return exitFailure
}
