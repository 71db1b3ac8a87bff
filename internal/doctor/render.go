package doctor

import (
	"fmt"
	"strings"
)

// Missing lists the tools that are not installed.
func (r *Report) Missing() []Tool {
	var out []Tool
	for _, t := range r.Tools {
		if t.Status != StatusOK {
			out = append(out, t)
		}
	}
	return out
}

// Text renders the report for a person or a model; the first line is a verdict.
func (r *Report) Text() string {
	var b strings.Builder
	ok := len(r.Tools) - len(r.Missing())
	fmt.Fprintf(&b, "DOCTOR: %d of %d tools found; cores: %s; ptrace: %s\n", ok, len(r.Tools), r.Cores.Handler, r.Ptrace.Summary)
	fmt.Fprintf(&b, "triage %s (%s) on %s/%s", r.Build.Version, r.Build.GoVersion, r.OS, r.Arch)
	if r.Kernel != "" {
		fmt.Fprintf(&b, ", kernel %s", r.Kernel)
	}
	b.WriteString("\n\ntools:\n")
	for _, t := range r.Tools {
		switch {
		case t.Status == StatusOK && t.runtime:
			fmt.Fprintf(&b, "  %-20s %s, for %s  (%s)\n", t.Name, t.Version, t.Purpose, t.Path)
		case t.Status == StatusOK:
			fmt.Fprintf(&b, "  %-20s %s  (%s)\n", t.Name, t.Version, t.Path)
		case t.Status == StatusMissing:
			fmt.Fprintf(&b, "  %-20s missing — %s; install: %s\n", t.Name, t.Purpose, t.Install)
		default:
			fmt.Fprintf(&b, "  %-20s error: %s\n", t.Name, t.Version)
		}
	}
	fmt.Fprintf(&b, "\ncores: core_pattern %q, core_uses_pid %v, RLIMIT_CORE soft %s hard %s\n  %s\n",
		r.Cores.Pattern, r.Cores.UsesPID, r.Cores.LimitSoft, r.Cores.LimitHard, r.Cores.Note)
	fmt.Fprintf(&b, "ptrace: yama scope %s, CAP_SYS_PTRACE %v\n", r.Ptrace.Scope, r.Ptrace.CapSys)
	fmt.Fprintf(&b, "store: %s (%s", r.Store.Path, r.Store.Status)
	if r.Store.Outputs > 0 {
		fmt.Fprintf(&b, ", %d outputs, %d bytes", r.Store.Outputs, r.Store.Bytes)
	}
	b.WriteString(")\n")
	cfg := r.Config.Path
	if cfg == "" {
		cfg = "none (built-in defaults)"
	}
	fmt.Fprintf(&b, "config: %s; workflows: %s; profile: %s\n", cfg, strings.Join(r.Config.Workflows, ", "), r.Config.Profile)
	for _, w := range r.Config.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", w)
	}
	return b.String()
}
