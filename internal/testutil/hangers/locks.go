package hangers

import "testing"

// Programs whose threads wait for pthread mutexes other threads hold, for
// naming a lock's holder: a three-thread cycle (Cycle3) and a holder
// blocked reading a pipe with two waiters (HolderReads). Each prints
// "ready" only once every waiter sleeps in its lock (asleepC), so a test
// that stops it there finds them in the lock, not on their way to it.

// asleepC declares about_to_block, which a thread calls just before the
// call it blocks in, and wait_asleep, with which main waits until the
// thread sleeps: nothing between the two can sleep but that call.
const asleepC = `#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Atomic int tids[8];

static void about_to_block(int i) { tids[i] = (int)syscall(SYS_gettid); }

static void wait_asleep(int i) {
	for (;;) {
		char path[64], buf[512] = {0};
		int tid = tids[i];
		if (tid != 0) {
			snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
			FILE *f = fopen(path, "r");
			if (f) {
				fread(buf, 1, sizeof buf - 1, f);
				fclose(f);
			}
			char *p = strrchr(buf, ')');
			if (p && p[1] == ' ' && p[2] == 'S')
				return;
		}
		usleep(1000);
	}
}
`

// Cycle3 is a C program of three threads in a lock cycle: one holds a and
// waits for b, two holds b and waits for c, three holds c and waits for a
// (lines "LOCK-B-IN-ONE", "LOCK-C-IN-TWO", "LOCK-A-IN-THREE").
func Cycle3(t testing.TB) Program {
	t.Helper()
	return cProgram(t, "cycle3", cycle3C)
}

const cycle3C = asleepC + `
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER, c = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t all_hold_one;

static void *one(void *arg) {
	pthread_mutex_lock(&a);
	pthread_barrier_wait(&all_hold_one);
	about_to_block(0);
	pthread_mutex_lock(&b); /* LOCK-B-IN-ONE */
	return arg;
}

static void *two(void *arg) {
	pthread_mutex_lock(&b);
	pthread_barrier_wait(&all_hold_one);
	about_to_block(1);
	pthread_mutex_lock(&c); /* LOCK-C-IN-TWO */
	return arg;
}

static void *three(void *arg) {
	pthread_mutex_lock(&c);
	pthread_barrier_wait(&all_hold_one);
	about_to_block(2);
	pthread_mutex_lock(&a); /* LOCK-A-IN-THREE */
	return arg;
}

int main(void) {
	pthread_t t[3];
	pthread_barrier_init(&all_hold_one, 0, 3);
	pthread_create(&t[0], 0, one, 0);
	pthread_create(&t[1], 0, two, 0);
	pthread_create(&t[2], 0, three, 0);
	for (int i = 0; i < 3; i++)
		wait_asleep(i);
	puts("ready");
	fflush(stdout);
	pthread_join(t[0], 0);
	return 0;
}
`

// HolderReads is a C program whose reader thread holds a mutex while it
// reads a pipe nobody writes ("READ-HOLDING"), and whose two waiter
// threads wait for that mutex ("LOCK-HELD"); main waits in pthread_join.
func HolderReads(t testing.TB) Program {
	t.Helper()
	return cProgram(t, "holdread", holdReadC)
}

const holdReadC = asleepC + `
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int fds[2];

static void *reader(void *arg) {
	char c;
	pthread_mutex_lock(&m);
	about_to_block(0);
	if (read(fds[0], &c, 1) == 1) /* READ-HOLDING */
		puts("read");
	pthread_mutex_unlock(&m);
	return arg;
}

static void *waiter(void *arg) {
	about_to_block((int)(long)arg);
	pthread_mutex_lock(&m); /* LOCK-HELD */
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void) {
	pthread_t t[3];
	if (pipe(fds) != 0)
		return 1;
	pthread_create(&t[0], 0, reader, 0);
	wait_asleep(0);
	pthread_create(&t[1], 0, waiter, (void *)1L);
	pthread_create(&t[2], 0, waiter, (void *)2L);
	wait_asleep(1);
	wait_asleep(2);
	puts("ready");
	fflush(stdout);
	pthread_join(t[0], 0);
	return 0;
}
`

// RWLockHeld is a C program whose holder thread takes a pthread rwlock
// for writing and then reads a pipe nobody writes ("READ-WRITING"), while
// a reader waits in pthread_rwlock_rdlock ("RDLOCK-HELD") and a writer in
// pthread_rwlock_wrlock ("WRLOCK-HELD"); main waits in pthread_join.
func RWLockHeld(t testing.TB) Program {
	t.Helper()
	return cProgram(t, "rwheld", rwHeldC)
}

const rwHeldC = asleepC + `
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int fds[2];

static void *holder(void *arg) {
	char c;
	pthread_rwlock_wrlock(&rw);
	about_to_block(0);
	if (read(fds[0], &c, 1) == 1) /* READ-WRITING */
		puts("read");
	pthread_rwlock_unlock(&rw);
	return arg;
}

static void *reader(void *arg) {
	about_to_block(1);
	pthread_rwlock_rdlock(&rw); /* RDLOCK-HELD */
	pthread_rwlock_unlock(&rw);
	return arg;
}

static void *writer(void *arg) {
	about_to_block(2);
	pthread_rwlock_wrlock(&rw); /* WRLOCK-HELD */
	pthread_rwlock_unlock(&rw);
	return arg;
}

int main(void) {
	pthread_t t[3];
	if (pipe(fds) != 0)
		return 1;
	pthread_create(&t[0], 0, holder, 0);
	wait_asleep(0);
	pthread_create(&t[1], 0, reader, 0);
	wait_asleep(1);
	pthread_create(&t[2], 0, writer, 0);
	wait_asleep(2);
	puts("ready");
	fflush(stdout);
	pthread_join(t[0], 0);
	return 0;
}
`
