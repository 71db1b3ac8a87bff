package main

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/server"
)

// A skill is one SKILL.md of the Agent Skills format: a directory named
// after the skill, holding the file.
type skill struct {
	Name string // the directory's name and the frontmatter's
	Text string
}

// skillMarker marks a file triage init wrote, so that it rewrites its own
// files and no other.
const skillMarker = "<!-- written by triage init, which rewrites this file: keep your changes in a skill of another name -->"

// skills are the two skills, written from the catalog (every workflow's
// tools and their descriptions), the server's instructions and the
// examples of `triage TOOL --help`, so they say what this triage does.
func skills(c *catalog.Catalog) []skill {
	return []skill{
		{"triage-mcp", mcpSkill(c)},
		{"triage-cli", cliSkill(c)},
	}
}

func frontmatter(b *strings.Builder, name, description string) {
	fmt.Fprintf(b, "---\nname: %s\ndescription: %s\n---\n%s\n\n", name, description, skillMarker)
}

func mcpSkill(c *catalog.Catalog) string {
	var b strings.Builder
	frontmatter(&b, "triage-mcp", "Build, test, run, debug and post-mortem native programs (C, C++, Rust, Go, Swift) "+
		"through the triage MCP server's tools, and never mistake a crash for a success. Use when building or testing "+
		"a project, running a program that may crash or hang, opening a core dump, or debugging, and triage's tools are connected.")
	b.WriteString("# triage over MCP\n\n")
	b.WriteString(server.Instructions + "\n\n")
	b.WriteString(verdictSection)
	b.WriteString(`## The crash loop

1. ` + "`test {\"project_dir\": \"/abs/project\"}`" + ` (or ` + "`run {\"program\": \"/abs/prog\"}`" + `) answers ` + "`CRASHED (SIGSEGV) in f at file.c:12`" + `, names the core it kept and the next calls with absolute paths:
   ` + "`next: dump_open {\"core\":\"/…/core.1234\",\"program\":\"/…/prog\"}`" + `. Copy those arguments as they are.
2. ` + "`dump_open {\"core\": CORE, \"program\": PROGRAM}`" + `: the dump and the crashing frame. Then ` + "`dump_report`" + ` (a first look: crashing thread, signal, the calls that usually come next) and ` + "`dump_command {\"command\": \"bt full\"}`" + ` (any gdb, lldb or drgn command; ` + "`dump_close`" + ` when done).
3. ` + "`debug_attach {\"core\": CORE, \"program\": PROGRAM}`" + `: the same core in the debugger; ` + "`debug_stack`" + `, ` + "`debug_variables {\"frame\": N}`" + ` for the frame of the project's code.
4. To see the state before the crash: ` + "`debug_attach {\"program\": PROGRAM, \"breakpoints\": [\"file.c:12\"]}`" + ` stops there; ` + "`debug_stack`" + `, ` + "`debug_variables`" + `, ` + "`debug_evaluate`" + `, ` + "`debug_step`" + `, ` + "`debug_continue`" + ` (it waits for the next stop), then ` + "`debug_detach`" + `.

## Long outputs

An answer shows an excerpt, errors first, and the ` + "`output_id`" + ` of the whole output. Page it with ` + "`output_get {\"output_id\": ID, \"offset\": N}`" + ` or search it with ` + "`output_search {\"output_id\": ID, \"pattern\": \"error|panic\"}`" + `; never re-run a build or test only to see more of its output.

`)
	writeToolList(&b, c, func(t *catalog.Tool) string { return "`" + t.Name + "`" })
	return b.String()
}

const verdictSection = `## Reading a verdict

The first line is the verdict. ` + "`SUCCEEDED`" + `, ` + "`BUILD SUCCEEDED`" + ` and ` + "`TESTS PASSED`" + ` come only with positive evidence: exit 0, the runner's own summary, every started test finished, no crash line. Anything else is a failure that says what is missing: ` + "`CRASHED (SIGSEGV) in FUNCTION at FILE:LINE`" + ` (the crashing frame of the project's own code; also with exit 0 when the output shows a crash), ` + "`TESTS FAILED: 2 of 6 failed; …`" + `, ` + "`BUILD FAILED: 3 errors (the tests did not run): FILE:LINE: error …`" + `, ` + "`NO TESTS RAN`" + `, ` + "`FAILED (exit N)`" + `, ` + "`TIMED OUT after 10s in …, blocked in …`" + ` (stacks taken before the kill). The lines after it give the evidence (the core, the crash report), the backtrace, and ` + "`next:`" + ` the exact calls that follow, with absolute paths.

`

// writeToolList lists every tool by workflow, each named by name(t), with
// its description.
func writeToolList(b *strings.Builder, c *catalog.Catalog, name func(*catalog.Tool) string) {
	b.WriteString("## Tools\n")
	for _, w := range c.Workflows {
		fmt.Fprintf(b, "\n### %s\n\n", w.Title)
		for _, t := range w.Tools {
			fmt.Fprintf(b, "- %s: %s\n", name(t), t.Description)
		}
	}
}
