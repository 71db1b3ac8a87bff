package toolchain

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/fault"
)

// Argv reads an argv array argument. A string is refused with an
// explanation: triage runs no shell, so "make -j4 check" cannot be split
// safely on the caller's behalf.
func Argv(v any, field string) ([]string, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		if strings.TrimSpace(x) == "" {
			return nil, nil
		}
		msg := fmt.Sprintf("%s must be an argv array, not a string: triage runs commands without a shell", field)
		if !strings.ContainsAny(x, "\"'\\$`|&;<>()*?{}~") {
			suggestion, _ := json.Marshal(strings.Fields(x))
			msg += fmt.Sprintf(", so pass %s", suggestion)
		} else {
			msg += `; split it into its arguments yourself, e.g. ["sh","-c","..."] if you do need a shell`
		}
		return nil, fault.Usage(errors.New(msg))
	case []string:
		return x, nil
	case []any:
		argv := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fault.Usagef("%s[%d] is %v: every argument must be a string", field, i, e)
			}
			argv[i] = s
		}
		if len(argv) == 0 {
			return nil, nil
		}
		return argv, nil
	}
	return nil, fault.Usagef("%s must be an argv array of strings, such as [\"make\",\"check\"]", field)
}
