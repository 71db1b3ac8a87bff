/* fault.h: what the "fault" test does, chosen by CFW_FAULT:
   fail (a failing assertion), segv, abort, exit0 (exit(0) mid-run); unset: it passes. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
static const char *cfw_fault(void) { const char *f = getenv("CFW_FAULT"); return f ? f : ""; }
static void cfw_crash(void) {
	const char *f = cfw_fault();
	if (strcmp(f, "segv") == 0) { volatile int *p = 0; *p = 1; }
	if (strcmp(f, "abort") == 0) abort();
	if (strcmp(f, "exit0") == 0) exit(0);
}
static int cfw_failing(void) { return strcmp(cfw_fault(), "fail") == 0; }
