package pipeline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/triage-dev/triage/internal/testreport"
)

// closingsFile keeps, beside a runner's report file (in triage's build
// directory), the count line each test program's last passing run ended
// with (testreport.Closings): a project's own runner that exits 0 before
// printing its closing line is held to it on the next run.
const closingsFile = "triage-closings.json"

// Bounds of the closings kept.
const (
	maxClosings     = 10000
	maxClosingsFile = 8 << 20
)

// holdToClosings holds the report file's passed tests to the closing lines
// their last passing runs printed, then keeps this run's for the next.
func (res *Result) holdToClosings(reportFile string, jr *testreport.Report) {
	path := filepath.Join(filepath.Dir(reportFile), closingsFile)
	prev := readClosings(path)
	jr.HoldToClosings(prev)
	now := jr.Closings()
	if len(now) == 0 {
		return
	}
	for k, v := range now {
		if _, ok := prev[k]; ok || len(prev) < maxClosings {
			prev[k] = v
		}
	}
	if err := writeClosings(path, prev); err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("keeping the tests' closing lines: %v", err))
	}
}

// readClosings reads the kept closings; a missing, oversized or damaged
// file is none (the next passing run writes it anew).
func readClosings(path string) testreport.Closings {
	out := testreport.Closings{}
	if fi, err := os.Stat(path); err != nil || fi.Size() > maxClosingsFile {
		return out
	}
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &out) != nil {
		return testreport.Closings{}
	}
	return out
}

// writeClosings replaces the file whole (a temporary file renamed), so a
// reader never sees half of it.
func writeClosings(path string, c testreport.Closings) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), closingsFile+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
