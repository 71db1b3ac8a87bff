package coredump

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// An .ips file is a one-line JSON header followed by a body: a JSON object
// (bug_type 309, macOS 12+ / iOS 15+) or, in older files, the legacy text
// report. Some tools concatenate several header+body pairs in one file.

type ipsHeader struct {
	AppName    string `json:"app_name"`
	Name       string `json:"name"`
	BugType    string `json:"bug_type"`
	Incident   string `json:"incident_id"`
	OSVersion  string `json:"os_version"`
	AppVersion string `json:"app_version"`
	Build      string `json:"build_version"`
	BundleID   string `json:"bundleID"`
	Timestamp  string `json:"timestamp"`
}

type ipsBody struct {
	ProcName    string `json:"procName"`
	Pid         int    `json:"pid"`
	ProcPath    string `json:"procPath"`
	ParentProc  string `json:"parentProc"`
	ParentPid   int    `json:"parentPid"`
	CPUType     string `json:"cpuType"`
	ModelCode   string `json:"modelCode"`
	CaptureTime string `json:"captureTime"`
	Incident    string `json:"incident"`
	OSVersion   struct {
		Train string `json:"train"`
		Build string `json:"build"`
	} `json:"osVersion"`
	BundleInfo struct {
		ShortVersion string `json:"CFBundleShortVersionString"`
		Version      string `json:"CFBundleVersion"`
		Identifier   string `json:"CFBundleIdentifier"`
	} `json:"bundleInfo"`
	Exception *struct {
		Type    string `json:"type"`
		Signal  string `json:"signal"`
		Codes   string `json:"codes"`
		Subtype string `json:"subtype"`
	} `json:"exception"`
	Termination *struct {
		Namespace string      `json:"namespace"`
		Code      json.Number `json:"code"`
		Indicator string      `json:"indicator"`
		Reasons   []string    `json:"reasons"`
	} `json:"termination"`
	FaultingThread *int            `json:"faultingThread"`
	Threads        []ipsThread     `json:"threads"`
	UsedImages     []ipsImage      `json:"usedImages"`
	ASI            json.RawMessage `json:"asi"`
	ASIBacktraces  []string        `json:"asiBacktraces"`
	LastException  []ipsFrame      `json:"lastExceptionBacktrace"`
}

type ipsThread struct {
	Triggered bool       `json:"triggered"`
	Name      string     `json:"name"`
	Queue     string     `json:"queue"`
	Frames    []ipsFrame `json:"frames"`
}

type ipsFrame struct {
	ImageOffset    uint64 `json:"imageOffset"`
	ImageIndex     int    `json:"imageIndex"`
	Symbol         string `json:"symbol"`
	SymbolLocation uint64 `json:"symbolLocation"`
	SourceFile     string `json:"sourceFile"`
	SourceLine     int    `json:"sourceLine"`
	Inline         bool   `json:"inline"`
}

type ipsImage struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Base uint64 `json:"base"`
}

func parseIPS(data []byte) ([]*Report, error) {
	pos := skipSpace(data, 0)
	if pos >= len(data) || data[pos] != '{' {
		return nil, ErrUnrecognizedFormat
	}
	var reports []*Report
	var skipped []error
	for pos < len(data) {
		rep, next, err := parseOneIPS(data, pos)
		if errors.Is(err, ErrNotCrashReport) {
			skipped = append(skipped, err)
		} else if err != nil {
			return nil, err
		} else {
			reports = append(reports, rep)
		}
		pos = skipSpace(data, next)
	}
	if len(reports) == 0 {
		return nil, fmt.Errorf("reading .ips: %w", errors.Join(skipped...))
	}
	return reports, nil
}

// parseOneIPS parses the header+body pair starting at data[pos] and returns
// the offset just after it.
func parseOneIPS(data []byte, pos int) (*Report, int, error) {
	var hdr ipsHeader
	end, err := decodeJSONAt(data, pos, &hdr, "the one-line JSON header")
	if err != nil {
		return nil, 0, err
	}
	body := skipSpace(data, end)
	if body >= len(data) {
		return nil, 0, &ParseError{Format: "ips", Line: lineAt(data, int64(body)), Offset: int64(body),
			Err: ErrTruncated, What: "header with no report body after it"}
	}
	if data[body] != '{' {
		return parseIPSTextBody(data, body, &hdr)
	}
	var b ipsBody
	end, err = decodeJSONAt(data, body, &b, "the JSON report body")
	if err != nil {
		return nil, 0, err
	}
	if b.Exception == nil && len(b.Threads) == 0 {
		return nil, end, fmt.Errorf("ips report %q (bug_type %s): %w", firstNonEmpty(b.ProcName, hdr.Name, hdr.AppName), hdr.BugType, ErrNotCrashReport)
	}
	return b.report(&hdr), end, nil
}

// parseIPSTextBody reads a legacy text body, which runs to the next line that
// starts a JSON header, or to the end.
func parseIPSTextBody(data []byte, pos int, hdr *ipsHeader) (*Report, int, error) {
	end := len(data)
	if i := bytes.Index(data[pos:], []byte("\n{\"")); i >= 0 {
		end = pos + i + 1
	}
	reps, err := parseLegacyCrash(data[pos:end])
	if err != nil {
		if errors.Is(err, ErrUnrecognizedFormat) {
			return nil, end, fmt.Errorf("ips report %q (bug_type %s) with a text body: %w", firstNonEmpty(hdr.Name, hdr.AppName), hdr.BugType, ErrNotCrashReport)
		}
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.Offset += int64(pos)
			pe.Line = lineAt(data, pe.Offset)
		}
		return nil, 0, err
	}
	rep := reps[0]
	rep.Format = "ips-legacy"
	rep.BugType = hdr.BugType
	rep.Incident = firstNonEmpty(rep.Incident, hdr.Incident)
	rep.OS = firstNonEmpty(rep.OS, hdr.OSVersion)
	if rep.ExceptionType == "" && rep.Crashed() == nil {
		return nil, end, fmt.Errorf("ips report %q (bug_type %s): %w", firstNonEmpty(rep.Process, hdr.Name), hdr.BugType, ErrNotCrashReport)
	}
	return rep, end, nil
}

// decodeJSONAt decodes one JSON value starting at data[pos] and returns the
// offset just after it, turning decoder errors into located ParseErrors.
func decodeJSONAt(data []byte, pos int, v any, what string) (int, error) {
	dec := json.NewDecoder(bytes.NewReader(data[pos:]))
	dec.UseNumber()
	err := dec.Decode(v)
	if err == nil {
		return pos + int(dec.InputOffset()), nil
	}
	pe := &ParseError{Format: "ips", Err: ErrCorrupt}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		pe.Err = ErrTruncated
		pe.Offset = int64(len(data))
		pe.What = "input ends inside " + what
	case errors.As(err, &syn):
		pe.Offset = int64(pos) + syn.Offset
		pe.What = fmt.Sprintf("in %s: %v", what, syn)
	case errors.As(err, &typ):
		pe.Offset = int64(pos) + typ.Offset
		pe.What = fmt.Sprintf("in %s: field %q holds a JSON %s, expected %s", what, typ.Field, typ.Value, typ.Type)
	default:
		pe.Offset = int64(pos)
		pe.What = fmt.Sprintf("in %s: %v", what, err)
	}
	pe.Line = lineAt(data, pe.Offset)
	return 0, pe
}

func (b *ipsBody) report(h *ipsHeader) *Report {
	r := &Report{
		Format:        "ips",
		BugType:       h.BugType,
		Incident:      firstNonEmpty(b.Incident, h.Incident),
		Process:       firstNonEmpty(b.ProcName, h.Name, h.AppName),
		Pid:           b.Pid,
		Path:          b.ProcPath,
		Identifier:    firstNonEmpty(b.BundleInfo.Identifier, h.BundleID),
		Version:       joinVersion(firstNonEmpty(b.BundleInfo.ShortVersion, h.AppVersion), firstNonEmpty(b.BundleInfo.Version, h.Build)),
		Parent:        b.ParentProc,
		ParentPid:     b.ParentPid,
		OS:            firstNonEmpty(joinOS(b.OSVersion.Train, b.OSVersion.Build), h.OSVersion),
		Hardware:      b.ModelCode,
		CodeType:      b.CPUType,
		Time:          firstNonEmpty(b.CaptureTime, h.Timestamp),
		CrashedThread: -1,
		ASI:           orderedASI(b.ASI),
	}
	if e := b.Exception; e != nil {
		r.ExceptionType = e.Type
		r.Signal = e.Signal
		r.ExceptionCodes = e.Codes
		if e.Subtype != "" {
			r.ExceptionCodes = e.Subtype
		}
	}
	if t := b.Termination; t != nil {
		r.TerminationNamespace = t.Namespace
		r.TerminationCode = t.Code.String()
		r.TerminationReason = strings.Join(append([]string{t.Indicator}, t.Reasons...), "; ")
		r.TerminationReason = strings.Trim(r.TerminationReason, "; ")
	}
	if b.FaultingThread != nil {
		r.CrashedThread = *b.FaultingThread
	}
	for i, t := range b.Threads {
		th := Thread{Index: i, Name: t.Name, Queue: t.Queue, Crashed: t.Triggered}
		if th.Crashed && r.CrashedThread < 0 {
			r.CrashedThread = i
		}
		th.Frames = b.frames(t.Frames)
		r.Threads = append(r.Threads, th)
	}
	if len(b.LastException) > 0 {
		r.LastExceptionBacktrace = b.frames(b.LastException)
	} else if len(b.ASIBacktraces) > 0 {
		r.LastExceptionBacktrace = parseFrameLines(b.ASIBacktraces[0])
	}
	if r.Process == "" && r.Path != "" {
		r.Process = path.Base(r.Path)
	}
	return r
}

func (b *ipsBody) frames(in []ipsFrame) []Frame {
	out := make([]Frame, 0, len(in))
	for i, f := range in {
		fr := Frame{Index: i, Function: f.Symbol, File: f.SourceFile, Line: f.SourceLine, Inlined: f.Inline}
		if f.ImageIndex >= 0 && f.ImageIndex < len(b.UsedImages) {
			img := b.UsedImages[f.ImageIndex]
			fr.Module = img.Name
			if fr.Module == "" && img.Path != "" {
				fr.Module = path.Base(img.Path)
			}
			if img.Base != 0 {
				fr.Address = img.Base + f.ImageOffset
			}
		}
		if f.Symbol != "" {
			fr.Offset = f.SymbolLocation
		} else {
			fr.Offset = f.ImageOffset
		}
		out = append(out, fr)
	}
	return out
}

// orderedASI flattens the "asi" object (image name → messages) keeping the
// report's order, which puts the most telling message (an uncaught
// exception's reason) first.
func orderedASI(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []string
	for dec.More() {
		if _, err := dec.Token(); err != nil { // key: the image name
			return out
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return out
		}
		var msgs []string
		if json.Unmarshal(val, &msgs) != nil {
			var one string
			if json.Unmarshal(val, &one) == nil {
				msgs = []string{one}
			}
		}
		for _, m := range msgs {
			if m = strings.TrimSpace(m); m != "" {
				out = append(out, m)
			}
		}
	}
	return out
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func joinVersion(short, build string) string {
	switch {
	case short == "":
		return build
	case build == "" || build == short:
		return short
	}
	return short + " (" + build + ")"
}

func joinOS(train, build string) string {
	if train == "" || build == "" {
		return train
	}
	return train + " (" + build + ")"
}
