package toolchain

import (
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/fault"
)

func TestArgvRefusesStringsAndNonStrings(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want []string
		err  string // part of the usage error, "" for none
	}{
		{nil, nil, ""},
		{"  ", nil, ""},
		{[]any{}, nil, ""},
		{[]any{"make", "check"}, []string{"make", "check"}, ""},
		{[]string{"go", "test"}, []string{"go", "test"}, ""},
		{"make -j4 check", nil, `so pass ["make","-j4","check"]`},
		{"make | tee log", nil, `["sh","-c","..."]`},
		{[]any{"make", 4}, nil, "command[1] is 4"},
		{42, nil, "argv array of strings"},
	} {
		got, err := Argv(tc.in, "command")
		if tc.err == "" {
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("Argv(%#v) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) || !fault.Is(err, fault.KindUsage) {
			t.Errorf("Argv(%#v) error = %v; want a usage error containing %q", tc.in, err, tc.err)
		}
	}
}
