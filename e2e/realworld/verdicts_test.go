package realworld

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestVerdicts runs the fault matrix: every cell marked CI, or all of them
// with TRIAGE_VERDICTS=all. Each cell logs one line (✓ or ✗, the truth and
// triage's verdict lines); TRIAGE_VERDICTS_MD=FILE writes the table, and
// with TRIAGE_VERDICTS_ROWS=1 rewrites only the rows of the cells that ran
// (a subset chosen with -run keeps the rest of the file true; make
// verdicts-rows).
func TestVerdicts(t *testing.T) {
	all := os.Getenv("TRIAGE_VERDICTS") == "all"
	var outcomes []Outcome
	for _, c := range matrix() {
		if !all && !c.CI {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			o := runCell(t, c)
			outcomes = append(outcomes, o)
			t.Log(o.line())
			switch {
			case len(o.Problems) > 0 && c.Known == "":
				t.Errorf("triage is wrong on %s:\n  %s", c.Name(), strings.Join(o.Problems, "\n  "))
			case len(o.Problems) == 0 && c.Known != "":
				t.Logf("%s is right now: its Known mark can go", c.Name())
			}
		})
	}
	var table strings.Builder
	for _, o := range outcomes {
		table.WriteString(o.line() + "\n")
	}
	t.Logf("verdict matrix (%d cells):\n%s", len(outcomes), table.String())
	if path := os.Getenv("TRIAGE_VERDICTS_MD"); path != "" {
		previous, _ := os.ReadFile(path) // the picker's outcome is kept from it when this machine has none
		doc := markdown(outcomes, all, string(previous))
		if os.Getenv("TRIAGE_VERDICTS_ROWS") != "" {
			doc = mergedMarkdown(outcomes, string(previous))
		}
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (o Outcome) mark() string {
	if len(o.Problems) == 0 {
		return "✓"
	}
	return "✗"
}

// line is the cell's one-line report.
func (o Outcome) line() string {
	s := fmt.Sprintf("%s %-36s truth: %-44s test: %s | filter: %s | %s",
		o.mark(), o.Cell.Name(), o.Truth, clip(o.Test, 90), clip(o.Filter, 70), o.Took.Round(100*time.Millisecond))
	if len(o.Problems) > 0 {
		s += "\n    " + strings.Join(o.Problems, "\n    ")
		if o.Cell.Known != "" {
			s += "\n    known: " + o.Cell.Known
		}
	}
	return s
}

// markdown renders docs/VERDICTS.md: the counts, how the corpus is chosen
// (with the picker's outcome, or the previous file's), and the matrix.
func markdown(outcomes []Outcome, all bool, previous string) string {
	scope := "the CI subset"
	if all {
		scope = "the whole matrix"
	}
	rows := make([]mdRow, 0, len(outcomes))
	for _, o := range outcomes {
		rows = append(rows, o.row())
	}
	return renderMarkdown(rows, scope, previous)
}

// mergedMarkdown is docs/VERDICTS.md with only the rows of the cells this
// run ran rewritten (TRIAGE_VERDICTS_ROWS=1): the previous file's other
// rows stay as they were, a cell new to the matrix gets its row in the
// matrix's order, a row whose cell is gone goes, and the header's counts
// are the table's.
func mergedMarkdown(outcomes []Outcome, previous string) string {
	ran := map[string]mdRow{}
	for _, o := range outcomes {
		ran[o.Cell.Name()] = o.row()
	}
	kept := previousRows(previous)
	var rows []mdRow
	missingRows := 0
	for _, c := range matrix() {
		switch r, ok := ran[c.Name()]; {
		case ok:
			rows = append(rows, r)
		case kept[c.Name()] != "":
			text := kept[c.Name()]
			rows = append(rows, mdRow{text: text, right: rowRight(text), known: c.Known != ""})
		default:
			missingRows++
		}
	}
	scope := "the whole matrix, each row its cell's last run"
	if missingRows > 0 {
		scope += fmt.Sprintf("; %d cells of it have no row yet", missingRows)
	}
	return renderMarkdown(rows, scope, previous)
}

// mdRow is one row of the matrix's table.
type mdRow struct {
	text  string // the whole line, without its newline
	right bool
	known bool // its cell has a Known mark
}

// row is the outcome's row of the table.
func (o Outcome) row() mdRow {
	mark := o.mark()
	switch {
	case len(o.Problems) > 0:
		mark += " " + strings.Join(o.Problems, "; ")
		if o.Cell.Known != "" {
			mark += " — known: " + o.Cell.Known
		}
	case o.Cell.Known != "":
		// Right this time, and known not to be every time.
		mark += " this run; not always — " + o.Cell.Known
	}
	return mdRow{
		text: fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s |", o.Cell.Project, o.Cell.Fault, o.Truth,
			cellText(o.Test), cellText(o.Filter), cellText(mark), o.Took.Round(100*time.Millisecond)),
		right: len(o.Problems) == 0,
		known: o.Cell.Known != "",
	}
}

const tableHead = "| project | fault | truth | triage call test | triage filter | | time |\n|---|---|---|---|---|---|---|\n"

// previousRows reads the previous file's table: each row by its cell's
// name (project/fault, the row's first two columns).
func previousRows(previous string) map[string]string {
	rows := map[string]string{}
	_, table, ok := strings.Cut(previous, tableHead)
	if !ok {
		return rows
	}
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		f := strings.SplitN(line[2:], " | ", 3)
		if len(f) == 3 {
			rows[f[0]+"/"+f[1]] = line
		}
	}
	return rows
}

// rowRight reads a row's mark: its sixth column starts with ✓.
func rowRight(line string) bool {
	return strings.Contains(line, " | `✓")
}

func renderMarkdown(rows []mdRow, scope, previous string) string {
	var b strings.Builder
	right, known := 0, 0
	for _, r := range rows {
		if r.right {
			right++
		}
		if r.known {
			known++
		}
	}
	fmt.Fprintf(&b, "# Verdicts on real projects\n\n")
	fmt.Fprintf(&b, "Generated by `make verdicts` (e2e/realworld, %s, %s/%s): %d of %d cells right; %d known not to be right every run (the reason is in its row).\n\n",
		scope, runtime.GOOS, runtime.GOARCH, right, len(rows), known)
	b.WriteString(corpusRule)
	b.WriteString(pickOutcome(previous))
	b.WriteString("\n## The matrix\n\n")
	b.WriteString("Each row is one fault injected into one project of the corpus (scripts/corpus.sh).\n" +
		"*test* is the verdict line of `triage call test` on it; *filter* the verdict line of\n" +
		"`triage filter` over the raw log of the same run. A row is right (✓) when both give the\n" +
		"truth's class, name the test that was running, point at the fault's file:line, keep every\n" +
		"error, failure and crash line of the raw log, and, for a core, when `dump_open` with the\n" +
		"hinted arguments opens it; `triage call test` may leave no process of the run running.\n" +
		"A wrong row (✗) says how, and why it is still wrong when known.\n" +
		"A *pristine* row is the project as fetched: both must say its tests passed, `triage call build`\n" +
		"that it built, and no answer may list a crash, failure or error.\n\n")
	b.WriteString(tableHead)
	for _, r := range rows {
		b.WriteString(r.text + "\n")
	}
	return b.String()
}

// cellText escapes a markdown table cell.
func cellText(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}
