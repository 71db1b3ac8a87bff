package coredump

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Apport (Ubuntu's crash handler) writes /var/crash/<exe path with / as _>.<uid>.crash
// in an RFC 822-like format: "Key: value" lines, with continuation lines
// starting with a space. Binary values such as CoreDump read "base64" on the
// key line, then one base64 block per continuation line; the decoded blocks
// concatenate to a gzip stream.

// findApport looks for apport's report (/var/crash/*.crash) and, on newer
// Ubuntu, the core it keeps for unpackaged programs
// (/var/lib/apport/coredump/core.<exe>.<uid>.<boot>.<pid>.<time>).
func (f *Finder) findApport(ctx context.Context, c Crash) ([]Artifact, error) {
	arts, err := f.poll(ctx, func() ([]Artifact, error) {
		var arts []Artifact
		cores, _ := filepath.Glob(filepath.Join(f.apportCore(), "core.*."+itoa(c.Pid)+".*"))
		for _, p := range cores {
			if st, err := os.Stat(p); err == nil && !st.ModTime().Before(c.Started.Add(-time.Second)) {
				arts = append(arts, Artifact{Kind: "core", Path: p, Size: st.Size(), ModTime: st.ModTime(), Note: "core kept by apport"})
			}
		}
		reports, _ := filepath.Glob(filepath.Join(f.crashDir(), "*.crash"))
		for _, p := range reports {
			if a, ok := apportMatch(p, c); ok {
				arts = append(arts, a)
			}
		}
		return arts, nil
	})
	if err != nil || len(arts) > 0 {
		return arts, err
	}
	return nil, &NoCoreError{Reason: fmt.Sprintf("core_pattern pipes cores to apport, which left nothing for pid %d in %s or %s (apport ignores unpackaged programs unless configured, and may be disabled)", c.Pid, f.crashDir(), f.apportCore())}
}

// apportMatch reads an apport report's header fields (stopping before the
// base64 CoreDump) and matches it to c by pid, or by executable and time.
func apportMatch(path string, c Crash) (Artifact, bool) {
	st, err := os.Stat(path)
	if err != nil || st.ModTime().Before(c.Started.Add(-time.Second)) {
		return Artifact{}, false
	}
	fh, err := os.Open(path)
	if err != nil {
		return Artifact{}, false
	}
	defer fh.Close()
	rep := readApportHeader(fh)
	if rep.pid != 0 && rep.pid != c.Pid {
		return Artifact{}, false
	}
	if rep.pid == 0 && rep.exe != c.Exe {
		return Artifact{}, false
	}
	note := fmt.Sprintf("apport report for %s, signal %s", rep.exe, cmpOr(rep.signal, "?"))
	if rep.hasCore {
		note += "; the core is inside (CoreDump field): ExtractApportCore or apport-unpack extracts it"
	}
	return Artifact{Kind: "apport", Path: path, Size: st.Size(), ModTime: st.ModTime(), Note: note}, true
}

type apportHeader struct {
	exe, signal string
	pid         int
	hasCore     bool
}

// readApportHeader reads the RFC 822-like apport format: "Key: value", with
// continuation lines starting with a space.
func readApportHeader(r *os.File) apportHeader {
	var h apportHeader
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	inStatus := false
	for sc.Scan() {
		ln := sc.Text()
		if strings.HasPrefix(ln, " ") {
			if inStatus {
				if v, ok := strings.CutPrefix(strings.TrimSpace(ln), "Pid:"); ok {
					h.pid, _ = strconv.Atoi(strings.TrimSpace(v))
				}
			}
			continue
		}
		key, val, _ := strings.Cut(ln, ":")
		val = strings.TrimSpace(val)
		inStatus = key == "ProcStatus"
		switch key {
		case "ExecutablePath":
			h.exe = val
		case "Signal":
			h.signal = val
		case "CoreDump":
			h.hasCore = true
			return h
		}
	}
	return h
}

// ExtractApportCore writes the core stored in an apport report's CoreDump
// field to dest, streaming (cores can be large).
func ExtractApportCore(report, dest string) (err error) {
	fh, err := os.Open(report)
	if err != nil {
		return fmt.Errorf("extracting core from apport report: %w", err)
	}
	defer fh.Close()
	br := bufio.NewReaderSize(fh, 1<<16)
	line := 0
	for {
		s, rerr := br.ReadString('\n')
		line++
		if strings.HasPrefix(s, "CoreDump:") {
			if strings.TrimSpace(strings.TrimPrefix(s, "CoreDump:")) != "base64" {
				return &ParseError{Format: "apport", Line: line, Err: ErrCorrupt, What: "CoreDump is not base64-encoded"}
			}
			break
		}
		if rerr != nil {
			return fmt.Errorf("extracting core from %s: %w", report, ErrNoCore)
		}
	}
	zr, err := gzip.NewReader(&apportBlocks{r: br, line: line})
	if err != nil {
		return apportStreamError(err, line)
	}
	out, err := os.Create(dest)
	if err != nil {
		return fmt.Errorf("extracting core from apport report: %w", err)
	}
	defer func() {
		if cerr := out.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("extracting core from apport report: %w", cerr)
		}
	}()
	if _, err := io.Copy(out, zr); err != nil {
		return apportStreamError(err, line)
	}
	return nil
}

func apportStreamError(err error, line int) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return pe
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &ParseError{Format: "apport", Line: line, Err: ErrTruncated, What: "CoreDump ends before its gzip stream does"}
	}
	return &ParseError{Format: "apport", Line: line, Err: ErrCorrupt, What: "CoreDump gzip stream: " + err.Error()}
}

// apportBlocks reads the continuation lines of a base64 field, decoding
// each line on its own, and ends at the first line that does not continue.
type apportBlocks struct {
	r    *bufio.Reader
	line int
	buf  []byte
	done bool
}

func (a *apportBlocks) Read(p []byte) (int, error) {
	for len(a.buf) == 0 {
		if a.done {
			return 0, io.EOF
		}
		if err := a.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, a.buf)
	a.buf = a.buf[n:]
	return n, nil
}

func (a *apportBlocks) next() error {
	peek, err := a.r.Peek(1)
	if err != nil || peek[0] != ' ' {
		a.done = true
		return nil
	}
	s, err := a.r.ReadString('\n')
	a.line++
	if err != nil && err != io.EOF {
		return err
	}
	a.buf, err = base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return &ParseError{Format: "apport", Line: a.line, Err: ErrCorrupt, What: "CoreDump line is not base64: " + err.Error()}
	}
	return nil
}
