#include <criterion/criterion.h>
#include <signal.h>
#include <unistd.h>
#include "fault.h"

/* CFW_FAULT=killrunner: the test kills the runner that forked it, which
   ends the run before its summary. */
static void kill_runner(void) {
	if (strcmp(cfw_fault(), "killrunner") == 0) { kill(getppid(), SIGKILL); pause(); }
}

Test(math, add) { cr_assert_eq(1 + 1, 2); }
Test(math, fault) {
	kill_runner();
	cfw_crash();
	cr_assert_eq(cfw_failing() ? 3 : 2, 2, "fault: want %d", 2);
}
Test(math, sub) { cr_assert_eq(3 - 1, 2); }
Test(strings, same) { cr_assert_str_eq("a", "a"); }
Test(strings, skipped, .disabled = true) { cr_assert(0); }
