package config

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Parse decodes a config file's contents; path is used in messages only.
func Parse(path string, data []byte) (*Config, error) {
	c := &Config{Path: path}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("config %s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(root.Content) == 0 {
		return c, nil // empty file
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("config %s: line %d: the top level must be a mapping of keys (workflows:, defaults:, ...)", path, doc.Line)
	}
	if err := doc.Decode(c); err != nil {
		return nil, fmt.Errorf("config %s: %s", path, describeDecodeError(err))
	}
	for _, u := range unknownKeys(doc, reflect.TypeFor[Config](), "") {
		c.Warnings = append(c.Warnings, fmt.Sprintf("config %s: %s", path, u))
	}
	return c, nil
}

func describeDecodeError(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return strings.Join(te.Errors, "; ")
	}
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// UnmarshalYAML parses a duration scalar, reporting the line on error.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: expected a duration such as 90s or 10m", n.Line)
	}
	if err := d.UnmarshalText([]byte(n.Value)); err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	return nil
}

// unknownKeys walks a mapping node against struct type t and describes every
// key that t does not declare.
func unknownKeys(n *yaml.Node, t reflect.Type, prefix string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	switch {
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ft, ok := fields[k.Value]
			if !ok {
				out = append(out, fmt.Sprintf("line %d: unknown key %q ignored (known: %s)",
					k.Line, prefix+k.Value, strings.Join(sortedKeys(fields), ", ")))
				continue
			}
			out = append(out, unknownKeys(v, ft, prefix+k.Value+".")...)
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			out = append(out, unknownKeys(n.Content[i+1], t.Elem(), prefix+n.Content[i].Value+".")...)
		}
	}
	return out
}

func yamlFields(t reflect.Type) map[string]reflect.Type {
	fields := make(map[string]reflect.Type)
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fields[name] = f.Type
	}
	return fields
}

func sortedKeys(m map[string]reflect.Type) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

// applyEnv overlays TRIAGE_* variables from env (os.Environ form).
func (c *Config) applyEnv(env []string) error {
	get := func(name string) (string, bool) {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
				return v, true
			}
		}
		return "", false
	}
	if v, ok := get("TRIAGE_WORKFLOWS"); ok {
		c.Workflows = SplitList(v)
	}
	if v, ok := get("TRIAGE_PROFILE"); ok && v != "" {
		c.Profile = v
	}
	if v, ok := get("TRIAGE_STORE"); ok && v != "" {
		c.Store.Path = v
	}
	if v, ok := get("TRIAGE_SSH_CONFIG"); ok && v != "" {
		c.SSH.Config = v
	}
	if v, ok := get("TRIAGE_DEBUGGER_BACKEND"); ok && v != "" {
		c.Debugger.Backend = v
	}
	if v, ok := get("TRIAGE_OUTPUT_BUDGET"); ok && v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("TRIAGE_OUTPUT_BUDGET=%q: want a number of bytes", v)
		}
		c.Output.BudgetBytes = n
	}
	for name, dst := range map[string]*Duration{
		"TRIAGE_RUN_TIMEOUT":     &c.Timeouts.Run,
		"TRIAGE_COMMAND_TIMEOUT": &c.Timeouts.Command,
	} {
		if v, ok := get(name); ok && v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return fmt.Errorf("%s=%q: want a duration such as 90s or 10m", name, v)
			}
			*dst = Duration(d)
		}
	}
	return nil
}

// SplitList splits a comma- or space-separated list, dropping empty items.
func SplitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
}
