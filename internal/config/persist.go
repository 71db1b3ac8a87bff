package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/triage-dev/triage/internal/defaults"
)

func sortStrings(s []string) { sort.Strings(s) }

// SaveDefaults writes the values of one profile into the config file at path,
// creating the file (and its directory) if needed. Everything else in the file,
// comments included, is kept. The "default" profile is stored under
// `defaults:`, others under `profiles: NAME:`.
func SaveDefaults(path, profile string, v defaults.Values) error {
	var root yaml.Node
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := yaml.Unmarshal(data, &root); err != nil {
			return fmt.Errorf("config %s: %v", path, err)
		}
	case os.IsNotExist(err):
	default:
		return fmt.Errorf("reading config: %w", err)
	}
	if len(root.Content) == 0 {
		root = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return fmt.Errorf("config %s: line %d: the top level must be a mapping", path, doc.Line)
	}
	var val yaml.Node
	if err := val.Encode(v); err != nil {
		return fmt.Errorf("encoding defaults: %w", err)
	}
	if profile == defaults.DefaultProfile || profile == "" {
		setKey(doc, "defaults", &val)
	} else {
		profiles := getKey(doc, "profiles")
		if profiles == nil || profiles.Kind != yaml.MappingNode {
			profiles = &yaml.Node{Kind: yaml.MappingNode}
			setKey(doc, "profiles", profiles)
		}
		setKey(profiles, profile, &val)
	}
	out, err := yaml.Marshal(&root)
	if err != nil {
		return fmt.Errorf("encoding config: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating config directory: %w", err)
	}
	// Write beside and rename, so a full disk never leaves half a file.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.yaml")
	if err != nil {
		return fmt.Errorf("writing config: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return fmt.Errorf("writing config: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing config: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing config: %w", err)
	}
	return nil
}

func getKey(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func setKey(m *yaml.Node, key string, val *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = val
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, val)
}
