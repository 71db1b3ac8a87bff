#include <pthread.h>
#include <unistd.h>

static pthread_barrier_t ready;

static void *worker(void *arg) {
	pthread_barrier_wait(&ready);
	for (;;)
		pause(); /* the workers wait here (or still in the barrier) */
	return arg;
}

int main(void) {
	pthread_t t[2];
	pthread_barrier_init(&ready, 0, 3);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], 0, worker, 0);
	pthread_barrier_wait(&ready);
	return 0; /* line 19: a breakpoint, both workers started */
}
