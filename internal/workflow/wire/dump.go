package wire

import "github.com/triage-dev/triage/internal/postmortem"

// EngineContext is where an engine stands in a dump: the task, CPU, thread
// and frame its commands apply to.
type EngineContext struct {
	PID    int    `json:"pid,omitempty"`
	Task   string `json:"task,omitempty" jsonschema:"crash's task_struct address, hex"`
	CPU    int    `json:"cpu,omitempty"`
	Thread int    `json:"thread,omitempty"`
	Frame  int    `json:"frame,omitempty"`
	Set    bool   `json:"set,omitempty" jsonschema:"a command moved it from the initial one"`
}

// DumpInfo is what a dump file is.
type DumpInfo struct {
	Path       string `json:"path"`
	Size       int64  `json:"size" jsonschema:"bytes"`
	Kind       string `json:"kind" jsonschema:"vmcore, kdump-compressed, kdump-flattened, core or macho-core"`
	Kernel     bool   `json:"kernel" jsonschema:"a kernel dump (crash, drgn); else a process core (gdb, lldb, drgn)"`
	Producer   string `json:"producer,omitempty" jsonschema:"qemu, kdump or makedumpfile"`
	Arch       string `json:"arch,omitempty"`
	CPUs       int    `json:"cpus,omitempty"`
	VMCOREINFO bool   `json:"vmcoreinfo" jsonschema:"the dump carries VMCOREINFO (drgn needs it)"`
	OSRelease  string `json:"os_release,omitempty"`
	BuildID    string `json:"build_id,omitempty" jsonschema:"the kernel's GNU build ID"`
}

// Engine is one engine of a dump session.
type Engine struct {
	Engine  string        `json:"engine" jsonschema:"crash, drgn, gdb or lldb"`
	State   string        `json:"state" jsonschema:"not started, running, failed or dead"`
	Pid     int           `json:"pid,omitempty"`
	Error   string        `json:"error,omitempty"`
	Context EngineContext `json:"context"`
}

// EngineContextOf converts an engine context.
func EngineContextOf(c postmortem.Context) EngineContext { return EngineContext(c) }

// DumpInfoOf converts a dump's description, nil for nil.
func DumpInfoOf(d *postmortem.DumpInfo) *DumpInfo {
	return ptr(d, func(d postmortem.DumpInfo) DumpInfo {
		return DumpInfo{
			Path: d.Path, Size: d.Size, Kind: string(d.Kind), Kernel: d.Kernel, Producer: d.Producer,
			Arch: d.Arch, CPUs: d.CPUs, VMCOREINFO: d.VMCOREINFO, OSRelease: d.OSRelease, BuildID: d.BuildID,
		}
	})
}

// EnginesOf converts engine states.
func EnginesOf(es []postmortem.EngineInfo) []Engine {
	return list(es, func(e postmortem.EngineInfo) Engine {
		return Engine{Engine: string(e.Engine), State: e.State, Pid: e.Pid, Error: e.Error, Context: EngineContextOf(e.Context)}
	})
}
