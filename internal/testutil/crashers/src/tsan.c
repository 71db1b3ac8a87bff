#include <pthread.h>
#include <stdio.h>

int counter;

void *bump(void *arg) {
	counter++;
	return arg;
}

int main(void) {
	pthread_t t;
	pthread_create(&t, 0, bump, 0);
	counter++;
	pthread_join(t, 0);
	printf("%d\n", counter);
	return 0;
}
