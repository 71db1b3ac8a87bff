#include <pthread.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;

int main(void) {
	pthread_mutex_lock(&a); /* MARK first */
	pthread_mutex_lock(&b); /* MARK second */
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	pthread_mutex_lock(&b);
	pthread_mutex_lock(&a); /* MARK access */
	pthread_mutex_unlock(&a);
	pthread_mutex_unlock(&b);
	return 0;
}
