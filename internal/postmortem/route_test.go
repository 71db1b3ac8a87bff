package postmortem

import (
	"errors"
	"testing"
)

func TestRouteKernel(t *testing.T) {
	r := Router{Kernel: true}
	tests := []struct {
		in       string
		explicit Engine
		engine   Engine
		command  string
		reason   string
	}{
		{"bt", "", EngineCrash, "bt", RouteCrashVerb},
		{"  bt -a  ", "", EngineCrash, "bt -a", RouteCrashVerb},
		{"log | tail -3", "", EngineCrash, "log | tail -3", RouteCrashVerb},
		{"p jiffies", "", EngineCrash, "p jiffies", RouteCrashVerb},
		{"for bt", "", EngineCrash, "for bt", RouteCrashVerb},
		{"foreach UN bt", "", EngineCrash, "foreach UN bt", RouteCrashVerb},
		{"set -c 0", "", EngineCrash, "set -c 0", RouteCrashVerb},
		{"task_struct ffff888004a00000", "", EngineCrash, "task_struct ffff888004a00000", RouteDefault},
		{"crash: sys", "", EngineCrash, "sys", RoutePrefix},
		{"CRASH:sys", "", EngineCrash, "sys", RoutePrefix},
		{"drgn: prog['jiffies']", "", EngineDrgn, "prog['jiffies']", RoutePrefix},
		{"drgn:print(1)", "", EngineDrgn, "print(1)", RoutePrefix},
		{"prog['init_task'].comm", "", EngineDrgn, "prog['init_task'].comm", RoutePython},
		{"print(prog['jiffies'])", "", EngineDrgn, "print(prog['jiffies'])", RoutePython},
		{"t = find_task(prog, 1)", "", EngineDrgn, "t = find_task(prog, 1)", RoutePython},
		{"p = prog['jiffies']", "", EngineDrgn, "p = prog['jiffies']", RoutePython},
		{"x += 1", "", EngineDrgn, "x += 1", RoutePython},
		{"import os", "", EngineDrgn, "import os", RoutePython},
		{"from drgn.helpers.linux.pid import find_task", "", EngineDrgn, "from drgn.helpers.linux.pid import find_task", RoutePython},
		{"for t in for_each_task(prog):\n    print(t.pid)", "", EngineDrgn, "for t in for_each_task(prog):\n    print(t.pid)", RoutePython},
		{"help(drgn)", "", EngineDrgn, "help(drgn)", RoutePython},
		{"lambda: 0", "", EngineDrgn, "lambda: 0", RoutePython},
		{"len(list(for_each_task(prog)))", "", EngineDrgn, "len(list(for_each_task(prog)))", RoutePython},
		{"struct task_struct.comm ffff888004a00000", "", EngineCrash, "struct task_struct.comm ffff888004a00000", RouteCrashVerb},
		{"bt", EngineDrgn, EngineDrgn, "bt", RouteExplicit},
		{"x: int = 1", EngineDrgn, EngineDrgn, "x: int = 1", RouteExplicit},
		{"x: int = 1", "", "", "", ""}, // unknown prefix
		{"drgn: 1+1", EngineDrgn, EngineDrgn, "1+1", RouteExplicit},
		{"std::vector", "", EngineCrash, "std::vector", RouteDefault},
		{"x:=3", "", EngineCrash, "x:=3", RouteDefault},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := r.Route(tt.in, tt.explicit)
			if tt.engine == "" {
				if !errors.Is(err, ErrUnknownPrefix) {
					t.Fatalf("Route = %+v, %v; want ErrUnknownPrefix", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := Route{Engine: tt.engine, Command: tt.command, Reason: tt.reason}
			if got != want {
				t.Errorf("Route = %+v, want %+v", got, want)
			}
		})
	}
}

func TestRouteUserspace(t *testing.T) {
	tests := []struct {
		router   Router
		in       string
		explicit Engine
		want     Route
	}{
		{Router{}, "bt", "", Route{EngineGDB, "bt", RouteDefault}},
		{Router{}, "print(x)", "", Route{EngineGDB, "print(x)", RouteDefault}},
		{Router{}, "b main.c:12", "", Route{EngineGDB, "b main.c:12", RouteDefault}},
		{Router{}, "lldb: bt all", "", Route{EngineLLDB, "bt all", RoutePrefix}},
		{Router{}, "drgn: prog.threads()", "", Route{EngineDrgn, "prog.threads()", RoutePrefix}},
		{Router{Default: EngineLLDB}, "bt", "", Route{EngineLLDB, "bt", RouteDefault}},
		{Router{}, "info frame", "lldb", Route{EngineLLDB, "info frame", RouteExplicit}},
		{Router{}, "info frame", " GDB ", Route{EngineGDB, "info frame", RouteExplicit}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := tt.router.Route(tt.in, tt.explicit)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Route = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestRouteErrors(t *testing.T) {
	tests := []struct {
		router   Router
		in       string
		explicit Engine
		want     error
	}{
		{Router{Kernel: true}, "", "", ErrEmptyCommand},
		{Router{Kernel: true}, " \t\n", "", ErrEmptyCommand},
		{Router{Kernel: true}, "drgn:", "", ErrEmptyCommand},
		{Router{Kernel: true}, "crash:   ", "", ErrEmptyCommand},
		{Router{Kernel: true}, "pykdump: x", "", ErrUnknownPrefix},
		{Router{Kernel: true}, "crsh: bt", "", ErrUnknownPrefix},
		{Router{Kernel: true}, "kdb:bt", "", ErrUnknownPrefix},
		{Router{}, "windbg: k", "", ErrUnknownPrefix},
		{Router{Kernel: true}, "bt", "windbg", ErrUnknownEngine},
		{Router{Kernel: true}, "crash: bt", EngineDrgn, ErrEngineConflict},
		{Router{Kernel: true}, "gdb: bt", "", ErrWrongEngine},
		{Router{Kernel: true}, "bt", EngineLLDB, ErrWrongEngine},
		{Router{}, "crash: bt", "", ErrWrongEngine},
		{Router{Default: EngineCrash}, "bt", "", ErrWrongEngine},
	}
	for _, tt := range tests {
		t.Run(tt.in+"/"+string(tt.explicit), func(t *testing.T) {
			got, err := tt.router.Route(tt.in, tt.explicit)
			if !errors.Is(err, tt.want) {
				t.Errorf("Route = %+v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func FuzzRoute(f *testing.F) {
	for _, s := range []string{"bt", "drgn: x", "x: 1", "for t in x:\n  y", "crash:", "p a=b", "std::x", "\x00:"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, in string, kernel bool) {
		r, err := Router{Kernel: kernel}.Route(in, "")
		if err != nil {
			return
		}
		if r.Command == "" || r.Engine == "" {
			t.Fatalf("Route(%q) = %+v without error", in, r)
		}
		if _, err := ParseEngine(string(r.Engine)); err != nil {
			t.Fatalf("Route(%q) picked %q: %v", in, r.Engine, err)
		}
	})
}
