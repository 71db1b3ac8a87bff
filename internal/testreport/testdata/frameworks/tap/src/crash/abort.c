#include <stdio.h>
#include <stdlib.h>
int main(void) {
  printf("TAP version 13\n1..3\nok 1 - starts\n");
  fflush(stdout);
  abort();
}
