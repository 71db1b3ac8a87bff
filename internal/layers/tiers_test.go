package layers

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// diagramTiers reads the tier of every package from the diagram in
// docs/ARCHITECTURE.md's "Layers" section: a "tier N" line starts a tier,
// and each package is named in column 10 ("workflow/<name>" standing for
// every workflow package not named on its own).
func diagramTiers(t *testing.T) map[string]int {
	t.Helper()
	doc, err := os.ReadFile("../../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "## Layers\n")
	if !ok {
		t.Fatal(`docs/ARCHITECTURE.md has no "## Layers" section`)
	}
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```")
	tiers := map[string]int{}
	tier := -1
	for _, line := range strings.Split(block, "\n") {
		if len(line) < 10 || line[9] == ' ' || strings.HasPrefix(line, " -") {
			continue
		}
		if strings.HasPrefix(line, "tier") {
			n, err := strconv.Atoi(strings.TrimSpace(line[4:9]))
			if err != nil {
				t.Fatalf("diagram line %q: %v", line, err)
			}
			tier = n
		} else if strings.TrimSpace(line[:9]) != "" {
			continue
		}
		tiers[strings.Fields(line[9:])[0]] = tier
	}
	if len(tiers) < 30 {
		t.Fatalf("read only %d packages from the diagram", len(tiers))
	}
	return tiers
}

// tierOf is a package's tier by the diagram; false when it is not there.
func tierOf(tiers map[string]int, pkg string) (int, bool) {
	name := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "internal/")
	if n, ok := tiers[name]; ok {
		return n, true
	}
	if strings.HasPrefix(name, "workflow/") {
		n, ok := tiers["workflow/<name>"]
		return n, ok
	}
	return 0, false
}

// TestTiers: every package is in the diagram of docs/ARCHITECTURE.md, and
// imports only packages of lower tiers than its own, so the diagram is the
// import graph's true shape and no cycle can form across tiers.
func TestTiers(t *testing.T) {
	tiers := diagramTiers(t)
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg := fields[0]
		if layer(pkg) == "test" && !strings.HasSuffix(pkg, "/benchreport") {
			continue
		}
		from, ok := tierOf(tiers, pkg)
		if !ok {
			t.Errorf("%s is not in the diagram of docs/ARCHITECTURE.md", strings.TrimPrefix(pkg, module))
			continue
		}
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module) || layer(imp) == "test" && !strings.HasSuffix(imp, "/benchreport") {
				continue
			}
			if to, ok := tierOf(tiers, imp); ok && to >= from {
				t.Errorf("%s (tier %d) imports %s (tier %d): imports point to lower tiers only", strings.TrimPrefix(pkg, module), from, strings.TrimPrefix(imp, module), to)
			}
		}
	}
}
