package wire

import "github.com/triage-dev/triage/internal/coredump"

// CoreInfo is what a core file's notes say of the process that dumped it.
type CoreInfo struct {
	Path         string    `json:"path"`
	Size         int64     `json:"size" jsonschema:"bytes"`
	Arch         string    `json:"arch" jsonschema:"x86_64, aarch64, ..."`
	Pid          int       `json:"pid"`
	PPid         int       `json:"ppid,omitempty"`
	Pgrp         int       `json:"pgrp,omitempty"`
	Sid          int       `json:"sid,omitempty"`
	Program      string    `json:"program" jsonschema:"the process name (at most 15 bytes)"`
	Args         string    `json:"args" jsonschema:"the command line (at most 80 bytes)"`
	Uid          int       `json:"uid"`
	Gid          int       `json:"gid"`
	ExePath      string    `json:"exe_path,omitempty"`
	Signal       int       `json:"signal"`
	SignalName   string    `json:"signal_name"`
	SigCode      string    `json:"sig_code,omitempty" jsonschema:"SEGV_MAPERR, SI_TKILL, ..."`
	FaultAddr    uint64    `json:"fault_addr,omitempty"`
	HasFaultAddr bool      `json:"has_fault_addr,omitempty"`
	Threads      int       `json:"threads"`
	Mappings     []Mapping `json:"mappings,omitempty" jsonschema:"file-backed memory mappings"`
	Truncated    bool      `json:"truncated,omitempty" jsonschema:"the dump was cut short"`
	MissingBytes int64     `json:"missing_bytes,omitempty"`
}

// Mapping is one file-backed memory mapping of a dumped process.
type Mapping struct {
	Start  uint64 `json:"start"`
	End    uint64 `json:"end"`
	Offset uint64 `json:"offset"`
	Path   string `json:"path"`
}

// CrashReport is a parsed Apple crash report (.ips or legacy .crash).
type CrashReport struct {
	Format                 string         `json:"format" jsonschema:"ips, ips-legacy or crash"`
	BugType                string         `json:"bug_type,omitempty"`
	Incident               string         `json:"incident,omitempty"`
	Process                string         `json:"process,omitempty"`
	Pid                    int            `json:"pid,omitempty"`
	Path                   string         `json:"path,omitempty"`
	Identifier             string         `json:"identifier,omitempty"`
	Version                string         `json:"version,omitempty"`
	Parent                 string         `json:"parent,omitempty"`
	ParentPid              int            `json:"parent_pid,omitempty"`
	OS                     string         `json:"os,omitempty"`
	Hardware               string         `json:"hardware,omitempty"`
	CodeType               string         `json:"code_type,omitempty"`
	Time                   string         `json:"time,omitempty" jsonschema:"as the report wrote it"`
	ExceptionType          string         `json:"exception_type,omitempty" jsonschema:"EXC_BAD_ACCESS and the like"`
	ExceptionCodes         string         `json:"exception_codes,omitempty"`
	Signal                 string         `json:"signal,omitempty"`
	TerminationNamespace   string         `json:"termination_namespace,omitempty"`
	TerminationCode        string         `json:"termination_code,omitempty"`
	TerminationReason      string         `json:"termination_reason,omitempty"`
	CrashedThread          int            `json:"crashed_thread" jsonschema:"index of the crashed thread, -1 when none is named"`
	Threads                []ReportThread `json:"threads,omitempty"`
	ASI                    []string       `json:"asi,omitempty" jsonschema:"Application Specific Information"`
	LastExceptionBacktrace []Frame        `json:"last_exception_backtrace,omitempty" jsonschema:"where an uncaught exception was thrown"`
}

// ReportThread is one thread of a crash report.
type ReportThread struct {
	Index   int     `json:"index"`
	Name    string  `json:"name,omitempty"`
	Queue   string  `json:"queue,omitempty"`
	Crashed bool    `json:"crashed,omitempty"`
	Frames  []Frame `json:"frames,omitempty"`
}

// CoreInfoOf converts a core's notes, nil for nil.
func CoreInfoOf(c *coredump.CoreInfo) *CoreInfo {
	return ptr(c, func(c coredump.CoreInfo) CoreInfo {
		w := CoreInfo{
			Path: c.Path, Size: c.Size, Arch: c.Arch, Pid: c.Pid, PPid: c.PPid, Pgrp: c.Pgrp, Sid: c.Sid,
			Program: c.Program, Args: c.Args, Uid: c.Uid, Gid: c.Gid, ExePath: c.ExePath,
			Signal: c.Signal, SignalName: c.SignalName, SigCode: c.SigCode, FaultAddr: c.FaultAddr,
			HasFaultAddr: c.HasFaultAddr, Threads: c.Threads, Truncated: c.Truncated, MissingBytes: c.MissingBytes,
		}
		w.Mappings = list(c.Mappings, func(m coredump.Mapping) Mapping { return Mapping(m) })
		return w
	})
}

// CrashReportsOf converts parsed crash reports.
func CrashReportsOf(rs []*coredump.Report) []*CrashReport {
	return list(rs, func(r *coredump.Report) *CrashReport { return ptr(r, crashReportOf) })
}

func crashReportOf(r coredump.Report) CrashReport {
	return CrashReport{
		Format: r.Format, BugType: r.BugType, Incident: r.Incident, Process: r.Process, Pid: r.Pid,
		Path: r.Path, Identifier: r.Identifier, Version: r.Version, Parent: r.Parent, ParentPid: r.ParentPid,
		OS: r.OS, Hardware: r.Hardware, CodeType: r.CodeType, Time: r.Time,
		ExceptionType: r.ExceptionType, ExceptionCodes: r.ExceptionCodes, Signal: r.Signal,
		TerminationNamespace: r.TerminationNamespace, TerminationCode: r.TerminationCode,
		TerminationReason: r.TerminationReason, CrashedThread: r.CrashedThread,
		Threads: list(r.Threads, func(t coredump.Thread) ReportThread {
			return ReportThread{Index: t.Index, Name: t.Name, Queue: t.Queue, Crashed: t.Crashed, Frames: FramesOf(t.Frames)}
		}),
		ASI: r.ASI, LastExceptionBacktrace: FramesOf(r.LastExceptionBacktrace),
	}
}
