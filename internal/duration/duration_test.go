package duration

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/triage-dev/triage/internal/fault"
)

func TestDuration(t *testing.T) {
	tests := []struct {
		s     Seconds
		def   time.Duration
		limit time.Duration
		want  time.Duration
		err   string
	}{
		{0, 10 * time.Minute, 0, 10 * time.Minute, ""},
		{0, 0, 0, 0, ""},
		{2.5, time.Minute, 0, 2500 * time.Millisecond, ""},
		{0.001, time.Minute, 0, time.Millisecond, ""},
		{86400, 0, 0, 24 * time.Hour, ""},
		{86400.5, 0, 0, 0, "timeout_s 86400.5: use a number of seconds between 0 and 86400"},
		{-1, time.Minute, 0, 0, "timeout_s -1: use a number of seconds between 0 and 86400"},
		{Seconds(math.Inf(1)), 0, 0, 0, "timeout_s +Inf: use a number of seconds between 0 and 86400"},
		{Seconds(math.NaN()), 0, 0, 0, "timeout_s NaN: use a number of seconds between 0 and 86400"},
		// A tool's own lower maximum.
		{3600, 0, CommandMax, time.Hour, ""},
		{3601, 0, CommandMax, 0, "timeout_s 3601: use a number of seconds between 0 and 3600"},
		// A limit above Max is Max.
		{7 * 86400, 0, 7 * 24 * time.Hour, 0, "between 0 and 86400"},
	}
	for _, tt := range tests {
		got, err := tt.s.Timeout(tt.def, tt.limit)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !fault.Is(err, fault.KindUsage) {
				t.Errorf("Timeout(%v, limit %v) = %v, %v; want a usage error %q", tt.s, tt.limit, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Timeout(%v, %v, %v) = %v, %v; want %v", tt.s, tt.def, tt.limit, got, err, tt.want)
		}
	}
	if err := Seconds(61).Check("wait_s", time.Minute); err == nil || err.Error() != "wait_s 61: use a number of seconds between 0 and 60" {
		t.Errorf("Check names the argument: %v", err)
	}
}

// Seconds decodes from a JSON or YAML number like a float64.
func TestDecode(t *testing.T) {
	var in struct {
		TimeoutS Seconds `json:"timeout_s" yaml:"timeout_s"`
	}
	if err := json.Unmarshal([]byte(`{"timeout_s": 1.5}`), &in); err != nil || in.TimeoutS != 1.5 {
		t.Errorf("JSON: %v, %v", in.TimeoutS, err)
	}
	if err := yaml.Unmarshal([]byte("timeout_s: 30\n"), &in); err != nil || in.TimeoutS != 30 {
		t.Errorf("YAML: %v, %v", in.TimeoutS, err)
	}
	if err := json.Unmarshal([]byte(`{"timeout_s": "ten"}`), &in); err == nil {
		t.Error("JSON string accepted as seconds")
	}
}
