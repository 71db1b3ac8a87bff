package ciout

import (
	"fmt"
	"io"
	"strings"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/textclip"
)

// MaxMarkdownRows bounds the failed tests the Markdown table lists.
const MaxMarkdownRows = 50

// WriteMarkdown writes a short Markdown summary fit for a GitHub Actions
// step summary ($GITHUB_STEP_SUMMARY): the verdict line, a table of the
// failed tests (status and place) and the counts of the tests and the log.
// rep and log may be nil.
func WriteMarkdown(w io.Writer, verdict string, rep *testreport.Report, log *logfilter.Summary) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", mdCell(verdict))
	if rep != nil {
		writeFailedTable(&b, rep.Failures())
		t := rep.Totals
		fmt.Fprintf(&b, "**Tests (%s):** %d total, %d passed, %d failed, %d errored, %d crashed, %d skipped\n\n",
			mdCell(rep.Format), t.Total, t.Passed, t.Failed, t.Errored, t.Crashed, t.Skipped)
	}
	if log != nil {
		fmt.Fprintf(&b, "**Log (%s):** %s, %s, %s, %s, %s\n", mdCell(log.Toolchain), textclip.Count(log.Lines, "line"),
			textclip.Count(log.Errors+log.LinkerErrors, "error"), textclip.Count(log.Warnings, "warning"),
			textclip.Count(log.Failures, "failure"), textclip.Count(log.Crashes, "crash line"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFailedTable writes the table of the failed tests, at most
// MaxMarkdownRows rows, then a line of how many more.
func writeFailedTable(b *strings.Builder, fails []testreport.Case) {
	if len(fails) == 0 {
		return
	}
	b.WriteString("| Test | Status | Place | Message |\n|---|---|---|---|\n")
	for i, c := range fails {
		if i == MaxMarkdownRows {
			fmt.Fprintf(b, "\n… and %d more failed tests\n", len(fails)-i)
			break
		}
		place := ""
		if c.File != "" {
			place = strings.ReplaceAll(c.File, "`", "'")
			if c.Line > 0 {
				place += fmt.Sprintf(":%d", c.Line)
			}
			place = "`" + place + "`"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", mdCell(CaseName(c)), mdCell(CaseStatus(c)), place, mdCell(FirstLine(c.Message, 200)))
	}
	b.WriteString("\n")
}

// mdCell makes text safe in a Markdown table cell: one line, its pipes,
// backslashes and HTML brackets escaped.
func mdCell(s string) string {
	s = strings.NewReplacer("\\", "\\\\", "|", "\\|", "<", "&lt;", ">", "&gt;", "\r", " ", "\n", " ").Replace(s)
	return strings.TrimSpace(s)
}
