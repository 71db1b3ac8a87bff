package postmortem

import (
	"strings"
	"testing"
)

func TestCommandKey(t *testing.T) {
	const dump = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	task1 := Context{PID: 1, Task: "ffff888004a00000", Set: true}
	task0 := Context{PID: 0, Task: "ffffffff82a1aa40", Set: true}
	key := func(e Engine, cmd string, ctx Context) string {
		k, _ := CommandKey(dump, e, cmd, ctx)
		return k
	}

	t.Run("shape", func(t *testing.T) {
		k := key(EngineCrash, "bt", task1)
		if !strings.HasPrefix(k, "0123456789ab/crash:bt:") || !strings.HasSuffix(k, "@task=ffff888004a00000") {
			t.Errorf("key = %q", k)
		}
		if k := key(EngineCrash, "bt", Context{}); strings.Contains(k, "@") {
			t.Errorf("initial-context key %q carries a context", k)
		}
	})
	same := []struct{ name, a, b string }{
		{"blank runs", "bt  -a", "bt -a"},
		{"surrounding space", "  log\n", "log"},
	}
	for _, tt := range same {
		t.Run("same/"+tt.name, func(t *testing.T) {
			if key(EngineCrash, tt.a, task1) != key(EngineCrash, tt.b, task1) {
				t.Errorf("%q and %q have different keys", tt.a, tt.b)
			}
		})
	}
	differ := []struct {
		name   string
		e1, e2 Engine
		c1, c2 string
		x1, x2 Context
	}{
		{"bt under two tasks", EngineCrash, EngineCrash, "bt", "bt", task1, task0},
		{"bt initial vs set", EngineCrash, EngineCrash, "bt", "bt", Context{}, task0},
		{"same text, two engines", EngineGDB, EngineLLDB, "bt", "bt", Context{}, Context{}},
		{"different commands", EngineCrash, EngineCrash, "bt", "bt -a", task1, task1},
		{"gdb locals in two frames", EngineGDB, EngineGDB, "info locals", "info locals", Context{Frame: 1, Set: true}, Context{Frame: 2, Set: true}},
		{"quoted spaces kept", EngineGDB, EngineGDB, `p "a  b"`, `p "a b"`, Context{}, Context{}},
		{"python indentation kept", EngineDrgn, EngineDrgn, "for t in x:\n    print(t)", "for t in x:\n  print(t)", Context{}, Context{}},
	}
	for _, tt := range differ {
		t.Run("differ/"+tt.name, func(t *testing.T) {
			if key(tt.e1, tt.c1, tt.x1) == key(tt.e2, tt.c2, tt.x2) {
				t.Errorf("same key for %s %q %+v and %s %q %+v", tt.e1, tt.c1, tt.x1, tt.e2, tt.c2, tt.x2)
			}
		})
	}
	t.Run("context-free commands ignore the context", func(t *testing.T) {
		for _, c := range []struct {
			e   Engine
			cmd string
		}{{EngineCrash, "log"}, {EngineCrash, "sys"}, {EngineCrash, "kmem -i"}, {EngineDrgn, "prog['jiffies']"}, {EngineGDB, "maint info sections"}} {
			if key(c.e, c.cmd, task1) != key(c.e, c.cmd, task0) {
				t.Errorf("%s %q depends on the context", c.e, c.cmd)
			}
		}
	})
	t.Run("hostile commands give bounded, clean verbs", func(t *testing.T) {
		for _, cmd := range []string{strings.Repeat("a", 10000), "\x00\x01/@:", "../../etc", "🙂 bt", ""} {
			k := key(EngineCrash, cmd, task1)
			if len(k) > 100 || strings.Count(k, "/") != 1 {
				t.Errorf("key for %q = %q", cmd, k)
			}
		}
	})
	t.Run("no dump id", func(t *testing.T) {
		if k, _ := CommandKey("", EngineCrash, "log", Context{}); !strings.HasPrefix(k, "nodump/") {
			t.Errorf("key = %q", k)
		}
	})
}

func TestCacheable(t *testing.T) {
	tests := []struct {
		engine Engine
		cmd    string
		want   bool
	}{
		{EngineCrash, "bt", true},
		{EngineCrash, "log", true},
		{EngineCrash, "p jiffies", true},
		{EngineCrash, "set 1", false},
		{EngineCrash, "set scroll off", false},
		{EngineCrash, "wr jiffies 0", false},
		{EngineCrash, "!ls", false},
		{EngineCrash, "log | grep -i oops", false},
		{EngineCrash, "q", false},
		{EngineCrash, "", false},
		{EngineGDB, "bt", true},
		{EngineGDB, "info locals", true},
		{EngineGDB, "frame 1", false},
		{EngineGDB, "set var x = 1", false},
		{EngineGDB, "call abort()", false},
		{EngineGDB, "shell ls", false},
		{EngineGDB, "!ls", false},
		{EngineGDB, "python import os; os.system('ls')", false},
		{EngineGDB, "pipe bt | wc -l", false},
		{EngineLLDB, "script print(1)", false},
		{EngineLLDB, "platform shell ls", false},
		{EngineCrash, "log > /tmp/x", false},
		{EngineCrash, "p init_task->comm", true},
		{EngineLLDB, "thread select 2", false},
		{EngineLLDB, "bt all", true},
		{EngineDrgn, "prog['jiffies']", true},
		{EngineDrgn, "print(prog['init_task'].comm)", true},
		{EngineDrgn, "t.pid == 1", true},
		{EngineDrgn, "t = find_task(prog, 1)", false},
		{EngineDrgn, "import os", false},
		{EngineDrgn, "x = 1; x", false},
		{EngineDrgn, "def f():\n    return 1", false},
		{EngineDrgn, "execscript('a.py')", false},
	}
	for _, tt := range tests {
		if _, got := CommandKey("d", tt.engine, tt.cmd, Context{}); got != tt.want {
			t.Errorf("cacheable(%s, %q) = %v, want %v", tt.engine, tt.cmd, got, tt.want)
		}
	}
}
