#include <pthread.h>
#include <unistd.h>

static pthread_barrier_t ready;

static void *worker(void *arg) {
	pthread_barrier_wait(&ready);
	for (;;)
		pause(); /* WORKER-WAITS (or still in the barrier) */
	return arg;
}

int main(void) {
	pthread_t t;
	pthread_barrier_init(&ready, 0, 2);
	pthread_create(&t, 0, worker, 0);
	pthread_barrier_wait(&ready);
	*(volatile int *)0 = 1; /* CRASH-IN-MAIN */
	return 0;
}
