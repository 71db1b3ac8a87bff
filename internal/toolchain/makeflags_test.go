package toolchain

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func makeProject(t *testing.T, makefile string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(makefile), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestMakeBuildsWithDebugInfo(t *testing.T) {
	t.Setenv("CFLAGS", "")
	t.Setenv("CXXFLAGS", "-O1")
	tests := []struct {
		name     string
		makefile string
		o        Options
		argv     []string
		env      map[string]string
	}{
		{"zlib's configure: -O3 without -g", "CC=gcc\n\nCFLAGS=-O3  -D_LARGEFILE64_SOURCE=1 -DHAVE_HIDDEN\n#CFLAGS=-g -DZLIB_DEBUG\nCXXFLAGS = -O2 # comment\ntest: all\n\t./example\n",
			Options{}, []string{"make", "CFLAGS=-O3  -D_LARGEFILE64_SOURCE=1 -DHAVE_HIDDEN -g", "CXXFLAGS=-O2 -g", "test"}, nil},
		{"automake's default has -g already", "CFLAGS = -g -O2\nCXXFLAGS = -g -O2\ncheck: all\n",
			Options{}, []string{"make", "check"}, nil},
		{"appended and continued", "CFLAGS = -O2 \\\n  -Wall\nCFLAGS += -Iinc\nCXXFLAGS ?= -ggdb\ntest:\n",
			Options{}, []string{"make", "CFLAGS=-O2    -Wall -Iinc -g", "test"}, nil},
		{"-g0 turns it off", "CFLAGS = -g -O2 -g0\nCXXFLAGS=-g\ntest:\n",
			Options{}, []string{"make", "CFLAGS=-g -O2 -g0 -g", "test"}, nil},
		{"a conditional or override: left alone", "ifeq ($(DEBUG),1)\nCFLAGS = -O0\nendif\noverride CXXFLAGS = -O2\ntest:\n",
			Options{}, []string{"make", "test"}, nil},
		{"left to the environment", "test:\n\t$(CC) $(CFLAGS) t.c\n",
			Options{}, []string{"make", "test"}, map[string]string{"CFLAGS": "-g", "CXXFLAGS": "-O1 -g"}},
		{"the caller's env and args win", "CFLAGS = -O3\nCXXFLAGS = -O3\ntest:\n",
			Options{Env: map[string]string{"CFLAGS": "-O1"}, Args: []string{"CXXFLAGS=-O0"}}, []string{"make", "CXXFLAGS=-O0", "test"}, map[string]string{"CFLAGS": "-O1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps, err := TestPlan(Make, makeProject(t, tt.makefile), tt.o)
			if err != nil {
				t.Fatal(err)
			}
			s := steps[0]
			if !reflect.DeepEqual(s.Argv, tt.argv) {
				t.Errorf("argv %q, want %q", s.Argv, tt.argv)
			}
			if len(s.Env) != len(tt.env) || (len(tt.env) > 0 && !reflect.DeepEqual(s.Env, tt.env)) {
				t.Errorf("env %v, want %v", s.Env, tt.env)
			}
		})
	}
}

func TestHasDebugInfo(t *testing.T) {
	for flags, want := range map[string]bool{"": false, "-O2": false, "-g": true, "-ggdb3 -O2": true, "-gdwarf-4": true, "-g -g0": false, "-g0 -g": true, "-gno-column-info": false} {
		if got := hasDebugInfo(flags); got != want {
			t.Errorf("hasDebugInfo(%q) = %v, want %v", flags, got, want)
		}
	}
}

// assignedName names the variable makeAssignment would, wherever it
// matches: the lines it spares the expression are never assignments of a
// wanted variable.
func TestAssignedNameAgreesWithTheExpression(t *testing.T) {
	for _, line := range []string{
		"CFLAGS=-O3", "CFLAGS = -O3", "CFLAGS+=-g", "CFLAGS += -g", "CFLAGS ?= -O2", "CFLAGS := $(X)",
		"CFLAGS ::= x", "CFLAGS != echo -g", "override CFLAGS += -g", "export LDFLAGS = -lm",
		"override export CC = clang", "CC\t=\tgcc", "X = a=b", "all: CFLAGS = -g",
		"test: all", "\tCFLAGS=-g make", "A B = c", "CFLAGS==x", "=x", "",
	} {
		m := makeAssignment().FindStringSubmatch(line)
		if m != nil && m[2] != assignedName(line) {
			t.Errorf("%q: the expression names %q, assignedName %q", line, m[2], assignedName(line))
		}
	}
	if assignedName("override CFLAGS += -g") != "CFLAGS" || assignedName("no assignment") != "" {
		t.Error("assignedName misreads a plain line")
	}
}

// One plan's questions share one parse of the Makefile: each still gets
// only the variables it asks about, and the same answer as a fresh read.
func TestMakeVarsParsedOnceAnswerEachQuestion(t *testing.T) {
	dir := makeProject(t, "CC = clang\nCFLAGS = -O2\nifeq ($(X),1)\nLDFLAGS = -s\nendif\nCXX=g++\ntest:\n\t$(CC) t.c\n")
	once := newReadOnce(localFiles{})
	for range 2 {
		for _, want := range []func(string) bool{isFlagVar, isCompilerVar} {
			got, fresh := makefileVars(once, dir, want), makefileVars(localFiles{}, dir, want)
			if !reflect.DeepEqual(got, fresh) {
				t.Fatalf("through the plan's reads: %v; a fresh read: %v", got, fresh)
			}
			for name := range got {
				if !want(name) {
					t.Errorf("%s answered a question that did not ask for it: %v", name, got)
				}
			}
		}
	}
	if got := makefileVars(once, dir, isFlagVar); got["CFLAGS"].value != "-O2" || !got["LDFLAGS"].unknown {
		t.Errorf("flags = %+v, want CFLAGS -O2 and LDFLAGS unknown (under a conditional)", got)
	}
	if got := makefileVars(once, dir, isCompilerVar); got["CC"].value != "clang" || got["CXX"].value != "g++" {
		t.Errorf("compilers = %+v, want CC clang and CXX g++", got)
	}
}
