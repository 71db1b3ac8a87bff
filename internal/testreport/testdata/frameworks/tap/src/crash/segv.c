#include <stdio.h>
#include <signal.h>
int main(void) {
  printf("1..4\nok 1 - starts\nok 2 - reads config\n");
  fflush(stdout);
  volatile int *p = 0;
  *p = 1; /* test 3 crashes */
  printf("ok 3 - writes\nok 4 - ends\n");
  return 0;
}
