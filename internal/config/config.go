// Package config loads triage's configuration: a .triage/config.yaml found by
// walking up from the working directory (or named explicitly), then TRIAGE_*
// environment variables, then command-line flags — each layer overriding the one
// before.
//
// An invalid file is an error naming the file and line. Unknown keys are not an
// error, but every one is reported as a warning (with its line), so a typo never
// silently does nothing.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/triage-dev/triage/internal/defaults"
)

// FileName is the config file's path relative to a project directory.
const FileName = ".triage/config.yaml"

// Config is the merged configuration.
type Config struct {
	// Workflows names the workflows to enable; empty means every available one.
	Workflows []string `yaml:"workflows,omitempty"`
	// Defaults are the session defaults of the "default" profile.
	Defaults defaults.Values `yaml:"defaults,omitempty"`
	// Profiles are further named sets of session defaults.
	Profiles map[string]defaults.Values `yaml:"profiles,omitempty"`
	// Profile is the profile active at start.
	Profile  string   `yaml:"profile,omitempty"`
	Debugger Debugger `yaml:"debugger,omitempty"`
	Timeouts Timeouts `yaml:"timeouts,omitempty"`
	Store    Store    `yaml:"store,omitempty"`
	Output   Output   `yaml:"output,omitempty"`
	Dump     Dump     `yaml:"dump,omitempty"`
	SSH      SSH      `yaml:"ssh,omitempty"`

	// Path is the file this configuration was read from ("" if none).
	Path string `yaml:"-"`
	// Warnings are non-fatal problems found while loading (unknown keys).
	Warnings []string `yaml:"-"`
}

// Debugger configures the debug workflow.
type Debugger struct {
	// Backend is the preferred backend: "dap" (default) or "lldb".
	Backend string `yaml:"backend,omitempty"`
}

// Timeouts are default time limits.
type Timeouts struct {
	// Run bounds run, build and test calls that give no timeout.
	Run Duration `yaml:"run,omitempty"`
	// Command bounds one debugger or dump-engine command.
	Command Duration `yaml:"command,omitempty"`
}

// Store configures the output store.
type Store struct {
	// Path of the SQLite database; ":memory:" keeps nothing after exit.
	Path string `yaml:"path,omitempty"`
	// MaxAge prunes outputs older than this.
	MaxAge Duration `yaml:"max_age,omitempty"`
	// MaxSizeMB prunes the oldest outputs once the total exceeds this.
	MaxSizeMB int64 `yaml:"max_size_mb,omitempty"`
}

// Output configures responses.
type Output struct {
	// BudgetBytes bounds the text of one response (default 8192).
	BudgetBytes int `yaml:"budget_bytes,omitempty"`
	// MaxStructuredBytes bounds the structured content of one response
	// (default 65536): beyond it the longest lists and strings are cut.
	MaxStructuredBytes int `yaml:"max_structured_bytes,omitempty"`
}

// Dump configures post-mortem analysis.
type Dump struct {
	// ScriptDirs are directories of drgn scripts offered by dump_scripts.
	ScriptDirs []string `yaml:"script_dirs,omitempty"`
}

// SSH configures the connections to remote hosts (ssh_host).
type SSH struct {
	// Config is the ssh client configuration file triage passes to ssh
	// (-F): host aliases, identity files, known_hosts. Empty: the user's
	// own (~/.ssh/config).
	Config string `yaml:"config,omitempty"`
}

// Duration is a time.Duration written as "30s" or "5m" in YAML.
type Duration time.Duration

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("invalid duration %q (use e.g. 90s, 10m, 2h)", b)
	}
	if v < 0 {
		return fmt.Errorf("invalid duration %q: must not be negative", b)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration in Go syntax.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Defaults used when the configuration sets nothing.
const (
	DefaultBudgetBytes = 8192
	DefaultRunTimeout  = 10 * time.Minute
	DefaultCmdTimeout  = 60 * time.Second
	DefaultMaxAge      = 7 * 24 * time.Hour
	DefaultMaxSizeMB   = 4096
)

// Find returns the config file governing dir: the nearest .triage/config.yaml in
// dir or one of its parents, or "" when there is none.
func Find(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, FileName)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Load reads the configuration for a process: the file at path, or (path "")
// the one Find locates from the working directory; then the environment env
// (as os.Environ) is applied. A missing explicit path is an error; no file at
// all is an empty configuration.
func Load(path string, env []string) (*Config, error) {
	explicit := path != ""
	if !explicit {
		wd, err := os.Getwd()
		if err == nil {
			path = Find(wd)
		}
	}
	c := &Config{}
	if path != "" {
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist) && explicit:
			return nil, fmt.Errorf("config file %s does not exist", path)
		case err != nil:
			return nil, fmt.Errorf("reading config: %w", err)
		}
		if c, err = Parse(path, data); err != nil {
			return nil, err
		}
	}
	if err := c.applyEnv(env); err != nil {
		return nil, err
	}
	return c, c.Validate()
}

// Validate checks values that YAML types alone cannot.
func (c *Config) Validate() error {
	switch c.Debugger.Backend {
	case "", "dap", "lldb":
	default:
		return fmt.Errorf("%sdebugger.backend %q: use dap or lldb", c.where(), c.Debugger.Backend)
	}
	if c.Profile != "" {
		if err := defaults.ValidProfile(c.Profile); err != nil {
			return fmt.Errorf("%sprofile: %v", c.where(), err)
		}
	}
	for name, v := range c.AllProfiles() {
		if err := defaults.ValidProfile(name); err != nil {
			return fmt.Errorf("%sprofiles: %v", c.where(), err)
		}
		m := v.Map()
		for _, p := range defaults.ExclusivePairs {
			_, a := m[p[0]]
			_, b := m[p[1]]
			if a && b {
				return fmt.Errorf("%sprofile %s sets both %s and %s: keep one", c.where(), name, p[0], p[1])
			}
		}
	}
	if c.Output.BudgetBytes < 0 || (c.Output.BudgetBytes > 0 && c.Output.BudgetBytes < 512) {
		return fmt.Errorf("%soutput.budget_bytes %d: use at least 512", c.where(), c.Output.BudgetBytes)
	}
	if c.Output.MaxStructuredBytes < 0 || (c.Output.MaxStructuredBytes > 0 && c.Output.MaxStructuredBytes < 4096) {
		return fmt.Errorf("%soutput.max_structured_bytes %d: use at least 4096", c.where(), c.Output.MaxStructuredBytes)
	}
	if c.Store.MaxSizeMB < 0 {
		return fmt.Errorf("%sstore.max_size_mb must not be negative", c.where())
	}
	return nil
}

func (c *Config) where() string {
	if c.Path == "" {
		return ""
	}
	return c.Path + ": "
}

// BudgetBytes is the response text budget in effect.
func (c *Config) BudgetBytes() int {
	if c.Output.BudgetBytes > 0 {
		return c.Output.BudgetBytes
	}
	return DefaultBudgetBytes
}

// RunTimeout is the default time limit of run, build and test.
func (c *Config) RunTimeout() time.Duration {
	if c.Timeouts.Run > 0 {
		return time.Duration(c.Timeouts.Run)
	}
	return DefaultRunTimeout
}

// RunTimeoutKey is the key that set RunTimeout, for a verdict that names
// its limit (capture.Limit): "timeouts.run", or "" for the built-in one.
func (c *Config) RunTimeoutKey() string {
	if c != nil && c.Timeouts.Run > 0 {
		return "timeouts.run"
	}
	return ""
}

// CommandTimeoutKey is the key that set CommandTimeout, as RunTimeoutKey.
func (c *Config) CommandTimeoutKey() string {
	if c != nil && c.Timeouts.Command > 0 {
		return "timeouts.command"
	}
	return ""
}

// CommandTimeout is the default time limit of one debugger or engine command.
func (c *Config) CommandTimeout() time.Duration {
	if c.Timeouts.Command > 0 {
		return time.Duration(c.Timeouts.Command)
	}
	return DefaultCmdTimeout
}

// AllProfiles returns the configured profiles including "default".
func (c *Config) AllProfiles() map[string]defaults.Values {
	out := make(map[string]defaults.Values, len(c.Profiles)+1)
	for k, v := range c.Profiles {
		out[k] = v
	}
	if !c.Defaults.IsZero() {
		out[defaults.DefaultProfile] = c.Defaults
	}
	return out
}
