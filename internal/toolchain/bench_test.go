package toolchain

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// configureSizedMakefile is a Makefile of about the size a configure script
// writes (zlib's has some 400 lines): variables, rules, long recipes.
func configureSizedMakefile() string {
	var b strings.Builder
	b.WriteString("CC=gcc\nCFLAGS=-O3 -D_LARGEFILE64_SOURCE=1 -DHAVE_HIDDEN\nLDFLAGS=\nSHELL=/bin/sh\n")
	for i := range 80 {
		fmt.Fprintf(&b, "OBJ%d = a%d.o b%d.o \\\n\tc%d.o\n", i, i, i, i)
		fmt.Fprintf(&b, "obj%d.o: src%d.c hdr.h\n\t$(CC) $(CFLAGS) -c -o $@ src%d.c\n\n", i, i, i)
	}
	b.WriteString("test: all\n\t./example\n\t./minigzip -h < README\n")
	return b.String()
}

// BenchmarkMakeCoveragePlan is the plan of a make coverage run, which
// asks the Makefile its test target, whether automake made it, its flag
// variables and its compiler.
func BenchmarkMakeCoveragePlan(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(configureSizedMakefile()), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := TestPlan(Make, dir, Options{Coverage: true}); err != nil {
			b.Fatal(err)
		}
	}
}
