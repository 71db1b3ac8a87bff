package spawn

import "testing"

func TestParseOOMKill(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"low 0\nhigh 0\nmax 3\noom 2\noom_kill 2\noom_group_kill 0\n", 2}, // cgroup v2 memory.events
		{"oom_kill_disable 0\nunder_oom 0\noom_kill 17\n", 17},             // cgroup v1 memory.oom_control
		{"oom_kill_disable 0\nunder_oom 0\n", -1},                          // v1 before 4.13
		{"", -1},
		{"oom_kill", -1},
		{"oom_kill \n", -1},
		{"oom_kill x\n", -1},
		{"oom_kill -4\n", -1},
		{"oom_kill 99999999999999999999\n", -1},
		{"oom_group_kill 5\n", -1},
		{"\x00\xff oom_kill 3\n", -1},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := parseOOMKill([]byte(tt.in)); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

// The counter's file is remembered once found, and found again when it
// stops reading (a cgroup removed, a path that was never there).
func TestOOMKillsRemembersItsFile(t *testing.T) {
	path, want := findOOMKills()
	if want < 0 {
		t.Skip("this machine's cgroup has no readable OOM-kill counter; nothing to remember")
	}
	if got := oomKills(); got != want {
		t.Fatalf("oomKills = %d, want %d (read from %s)", got, want, path)
	}
	if got, _ := oomFile.Load().(string); got != path {
		t.Errorf("remembered %q, want %q", got, path)
	}
	oomFile.Store(t.TempDir() + "/gone/memory.events")
	if got := oomKills(); got != want {
		t.Errorf("after the file went away: %d, want %d", got, want)
	}
	if got, _ := oomFile.Load().(string); got != path {
		t.Errorf("found again %q, want %q", got, path)
	}
}
