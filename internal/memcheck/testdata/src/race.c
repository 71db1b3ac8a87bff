#include <pthread.h>
#include <stdio.h>

int counter;

void *bump(void *arg) {
	counter++; /* MARK other */
	return arg;
}

int main(void) {
	pthread_t t;
	pthread_create(&t, 0, bump, 0);
	int seen = counter; /* MARK access */
	pthread_join(t, 0);
	printf("race %d\n", seen >= 0);
	return 0;
}
