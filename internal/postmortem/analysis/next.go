package analysis

import (
	"strings"

	"github.com/triage-dev/triage/internal/postmortem"
)

// Step is a command that usually comes after a report, and why.
type Step struct {
	Why, Command string
}

// NextSteps are the commands that usually come after r on a dump whose
// commands go to engine by default: for a process, the crashing frame's
// arguments and locals, the mappings the faulting address falls in or
// near, every thread; for
// a kernel, every CPU's backtrace, the whole log, memory use.
func NextSteps(r Report, engine postmortem.Engine) []Step {
	if r.Kernel {
		if engine != postmortem.EngineCrash {
			return []Step{{"the crashed thread's stack with its locals", "drgn: print(prog.crashed_thread().stack_trace())"}}
		}
		return []Step{
			{"every CPU's backtrace", "bt -a"},
			{"the whole kernel log", "log"},
			{"memory use", "kmem -i"},
		}
	}
	if engine == postmortem.EngineLLDB {
		steps := []Step{{"every thread's backtrace", "thread backtrace all"}}
		if fault := r.FaultAddress; fault != "" && !isNull(fault) {
			steps = append(steps, Step{"what the faulting address belongs to", "image lookup --address " + fault})
		}
		return steps
	}
	var steps []Step
	if fn := r.Function; fn != "" {
		steps = append(steps, Step{"the crashing frame's arguments and locals", "frame function " + fn + "\ninfo args\ninfo locals"})
	}
	if fault := r.FaultAddress; fault != "" && !isNull(fault) {
		steps = append(steps, Step{"the mappings, to see where " + fault + " falls", "info proc mappings"})
	}
	return append(steps, Step{"every thread's backtrace", "thread apply all bt"})
}

// isNull reports an address of zero (a NULL dereference maps nothing).
func isNull(addr string) bool {
	return strings.Trim(strings.TrimPrefix(strings.ToLower(addr), "0x"), "0") == ""
}
