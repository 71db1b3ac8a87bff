package xcode

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// List is what `xcodebuild -list -json` says about a workspace or project.
// Workspaces list only schemes; projects also targets and configurations.
type List struct {
	Kind           string   `json:"kind"` // "workspace" or "project"
	Name           string   `json:"name"`
	Schemes        []string `json:"schemes"`
	Targets        []string `json:"targets,omitempty"`
	Configurations []string `json:"configurations,omitempty"`
}

type listEntry struct {
	Name           string   `json:"name"`
	Schemes        []string `json:"schemes"`
	Targets        []string `json:"targets"`
	Configurations []string `json:"configurations"`
}

// ParseList parses the output of `xcodebuild -list -json`.
func ParseList(out []byte) (*List, error) {
	var doc struct {
		Workspace *listEntry `json:"workspace"`
		Project   *listEntry `json:"project"`
	}
	if err := decodeJSON("xcodebuild -list output", out, '{', &doc); err != nil {
		return nil, err
	}
	var l *List
	switch {
	case doc.Workspace != nil && doc.Project != nil:
		return nil, fmt.Errorf("parsing xcodebuild -list output: both a workspace and a project")
	case doc.Workspace != nil:
		l = &List{Kind: "workspace", Name: doc.Workspace.Name, Schemes: doc.Workspace.Schemes}
	case doc.Project != nil:
		p := doc.Project
		l = &List{Kind: "project", Name: p.Name, Schemes: p.Schemes, Targets: p.Targets, Configurations: p.Configurations}
	default:
		return nil, fmt.Errorf("parsing xcodebuild -list output: neither a \"workspace\" nor a \"project\" object")
	}
	if l.Schemes == nil {
		l.Schemes = []string{}
	}
	return l, nil
}

// HasScheme reports whether the list names the scheme.
func (l *List) HasScheme(scheme string) bool { return slices.Contains(l.Schemes, scheme) }

// SchemeError reports a scheme that a workspace or project does not have.
type SchemeError struct {
	Scheme    string
	Container string
	Schemes   []string
}

func (e *SchemeError) Error() string {
	if len(e.Schemes) == 0 {
		return fmt.Sprintf("scheme %q not found: %s has no shared schemes (share one in Xcode: Manage Schemes > Shared)", e.Scheme, e.Container)
	}
	s := append([]string(nil), e.Schemes...)
	sort.Strings(s)
	return fmt.Sprintf("scheme %q not found in %s; its schemes are: %s", e.Scheme, e.Container, strings.Join(s, ", "))
}

// CheckScheme returns a *SchemeError when the list lacks the scheme.
func (l *List) CheckScheme(scheme string) error {
	if l.HasScheme(scheme) {
		return nil
	}
	return &SchemeError{Scheme: scheme, Container: l.Name, Schemes: l.Schemes}
}
