package output

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// Bounds of a source page: lines a call returns at most, and the size of
// a source file read.
const (
	maxSourcePage  = 1000
	maxSourceBytes = 16 << 20
)

// source answers output_get {coverage: FILE, source: true}: the file's
// source lines from offset, each marked as the run saw it (see
// coverage.File.Mark), read from the run's project directory.
func (h *handler) source(ctx context.Context, st *store.Store, in getParams, a coverage.Answer, out wire.Page) (catalog.Result[wire.Page], error) {
	if a.File == nil {
		return catalog.Result[wire.Page]{}, fault.Usagef("source shows one file: %q is no file of run %s (coverage with a path lists its files)", in.Coverage, in.OutputID)
	}
	path := filepath.FromSlash(a.File.Path)
	if !filepath.IsAbs(path) {
		path = filepath.Join(a.Summary.Report.ProjectDir, path)
	}
	src, changed, err := readSource(ctx, st, in.OutputID, path)
	if err != nil {
		return catalog.Result[wire.Page]{}, err
	}
	if in.Offset < 0 || in.Limit < 0 {
		return catalog.Result[wire.Page]{}, fault.Usagef("offset and limit must be 0 or more")
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 200
	}
	lines, total := a.File.SourceLines(src, in.Offset+1, min(limit, maxSourcePage))
	lines = store.LinesWithin(lines, h.svc.Config.BudgetBytes())
	if in.Offset > 0 && in.Offset >= total {
		return catalog.Result[wire.Page]{}, fault.Usagef("offset %d is past the end of %s (%d lines; offset 0 is line 1)", in.Offset, a.File.Path, total)
	}
	out.Offset, out.Lines, out.TotalLines, out.Complete = in.Offset, lines, total, true
	if next := in.Offset + len(lines); next < total {
		out.Next = catalog.NextCall("output_get", map[string]any{"output_id": in.OutputID, "coverage": in.Coverage, "source": true, "offset": next, "limit": limit})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "COVERAGE of %s (%s, run %s): lines %d–%d of %d; + ran, - did not run\n", a.File.Path, a.Summary.Report.Tool, in.OutputID, in.Offset+1, in.Offset+len(lines), total)
	if changed {
		b.WriteString("  - the file changed after the run: its marks may be off by the lines added or removed\n")
	}
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if out.Next != "" {
		fmt.Fprintf(&b, "more: %s\n", out.Next)
	}
	return catalog.Result[wire.Page]{Text: b.String(), Output: out}, nil
}

// readSource reads a source file the run counted, and says whether it
// changed after the run began.
func readSource(ctx context.Context, st *store.Store, id, path string) (src []byte, changed bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, fault.NotFound(fmt.Errorf("the source %s cannot be read here (%w); a run on another host keeps its files there", path, err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fault.Usagef("the source %s is not a regular file", path)
	}
	src, err = io.ReadAll(io.LimitReader(f, maxSourceBytes+1))
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(src) > maxSourceBytes {
		return nil, false, fault.Usagef("the source %s is over %d MiB: read its lines with a file viewer, its uncovered ranges with coverage alone", path, maxSourceBytes>>20)
	}
	if e, err := st.Info(ctx, id); err == nil && fi.ModTime().After(e.Created) {
		changed = true
	}
	return src, changed, nil
}
