package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/defaults"
)

// wantsHelp reports -h or --help among a call's arguments.
func wantsHelp(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "--help" || a == "-help" })
}

// writeToolHelp describes one tool for a person at a shell: what it does,
// every argument with its type and meaning, the session defaults that
// fill arguments left out, and two examples.
func writeToolHelp(w io.Writer, sel *catalog.Selection, all *catalog.Selection, name string) error {
	t := findTool(all, name)
	if t == nil {
		names := make([]string, 0, len(all.Tools))
		for _, t := range all.Tools {
			names = append(names, t.Name)
		}
		return unknownTool(name, names, "`triage tools --all` lists them")
	}
	fmt.Fprintf(w, "triage %s — %s\n", name, t.Description)
	if reason, ok := sel.Absent[name]; ok && findTool(sel, name) == nil {
		fmt.Fprintf(w, "(not available here: %s)\n", reason)
	}
	props, err := schemaProperties(t.InputSchema())
	if err != nil {
		return err
	}
	required := t.InputSchema().Required
	var fromDefaults []string
	if len(props) == 0 {
		fmt.Fprintln(w, "\nno arguments")
	} else {
		fmt.Fprintln(w, "\narguments:")
	}
	for _, k := range sortedKeys(props) {
		p, _ := props[k].(map[string]any)
		typ := typeName(p["type"])
		desc, _ := p["description"].(string)
		desc = strings.TrimPrefix(argHelp(name, k, desc, t.ArgHelp(k)), "; ")
		req := ""
		if slices.Contains(required, k) {
			req = " (required)"
		}
		fmt.Fprintf(w, "  --%-18s %-8s%s %s\n", k, typ, req, desc)
		if defaults.IsKey(k) {
			fromDefaults = append(fromDefaults, k)
		}
	}
	if len(fromDefaults) > 0 {
		example := fromDefaults[0]
		if slices.Contains(fromDefaults, "project_dir") {
			example = "project_dir"
		}
		fmt.Fprintf(w, "\nsession defaults fill these when left out: %s\n  (set them once: triage session_set_defaults --%s VALUE)\n", strings.Join(fromDefaults, ", "), example)
	}
	fmt.Fprintln(w, "\nexamples:")
	for _, ex := range examples[name] {
		fmt.Fprintf(w, "  triage %s\n", strings.TrimSpace(name+" "+ex))
	}
	fmt.Fprintln(w, "\n--KEY VALUE sets an argument (repeat --KEY for a list, or give a JSON array; JSON for an object; a value that starts with - as --KEY=VALUE); --json '{...}' gives them all; --output json prints the structured result.")
	return nil
}

func findTool(sel *catalog.Selection, name string) *catalog.Tool {
	for _, t := range sel.Tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}
