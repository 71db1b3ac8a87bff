// Package layers holds the tests that keep triage's shape true: the import
// graph from `go list` follows the rules docs/ARCHITECTURE.md states, and no
// function is over 60 lines.
package layers

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/triage-dev/triage/"

// layer names the layer a package of the module is in.
func layer(pkg string) string {
	rel := strings.TrimPrefix(pkg, module)
	switch {
	case rel == "cmd/triage" || strings.HasPrefix(rel, "cmd/"):
		return "cmd"
	case rel == "internal/server":
		return "server"
	case rel == "internal/catalog":
		return "catalog"
	case strings.HasPrefix(rel, "internal/workflow/"):
		return "workflow"
	case rel == "internal/services":
		return "services"
	case rel == "internal/webui":
		return "webui"
	case strings.HasPrefix(rel, "internal/testutil"), rel == "internal/benchreport", rel == "internal/layers", strings.HasPrefix(rel, "e2e"):
		return "test"
	}
	return "domain"
}

// allowed says which layers each layer may import: arrows point down only.
var allowed = map[string][]string{
	"cmd":      {"server", "webui", "catalog", "workflow", "services", "domain", "test"},
	"server":   {"webui", "catalog", "workflow", "services", "domain"},
	"webui":    {"services", "domain"},
	"catalog":  {"services", "domain"},
	"workflow": {"catalog", "workflow", "services", "domain"},
	"services": {"domain"},
	"domain":   {"domain"},
}

// TestImportsPointDown: no package imports a layer above its own; in
// particular no domain package imports MCP's catalog, the server or a
// workflow, and no production package imports a test helper.
func TestImportsPointDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg, from := fields[0], layer(fields[0])
		if from == "test" {
			continue
		}
		n++
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			to := layer(imp)
			ok := false
			for _, a := range allowed[from] {
				ok = ok || a == to
			}
			if !ok {
				t.Errorf("%s (%s) imports %s (%s)", strings.TrimPrefix(pkg, module), from, strings.TrimPrefix(imp, module), to)
			}
		}
	}
	if n < 20 {
		t.Fatalf("go list named only %d packages: the module path changed?", n)
	}
}

// TestDomainDoesNotImportMCP: the MCP SDK stays above the domain layer.
func TestDomainDoesNotImportMCP(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if layer(fields[0]) != "domain" {
			continue
		}
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, "github.com/modelcontextprotocol/") {
				t.Errorf("%s imports %s", strings.TrimPrefix(fields[0], module), imp)
			}
		}
	}
}
