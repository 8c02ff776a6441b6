// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Without CAP_SYS_NICE the runtime must say so once on stderr and never
 * boost: observe-only when RLIMIT_NICE allows nothing, a lower nice value
 * (restored exactly) when RLIMIT_NICE allows it. Each case runs in a forked
 * child that first drops CAP_SYS_NICE (capset) and sets the rlimits; the
 * child's stderr goes to a file the parent reads.
 */
#include "sp_test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cmocka.h>

#include <superpass/runtime.h>

static int drop_cap_sys_nice(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &hdr, d) != 0)
		return -1;
	d[CAP_SYS_NICE / 32].effective &= ~(1u << (CAP_SYS_NICE % 32));
	d[CAP_SYS_NICE / 32].permitted &= ~(1u << (CAP_SYS_NICE % 32));
	d[CAP_SYS_NICE / 32].inheritable &= ~(1u << (CAP_SYS_NICE % 32));
	return (int)syscall(SYS_capset, &hdr, d);
}

static sp_mutex_t m;
static int locked, go;
static pid_t holder_tid;
static int holder_nice_during, holder_policy_during;
static struct sp_sched_attr before, after;

static void *holder_main(void *arg)
{
	int expect_nice_boost = *(int *)arg;

	sp_test_set_nice(19);
	holder_tid = sp_test_gettid();
	sp_sched_getattr(0, &before);
	sp_mutex_lock(&m);
	__atomic_store_n(&locked, 1, __ATOMIC_RELEASE);
	if (expect_nice_boost)
		SP_WAIT_FOR(sp_test_nice(0) != 19);
	else
		SP_WAIT_FOR(__atomic_load_n(&go, __ATOMIC_ACQUIRE));
	holder_nice_during = sp_test_nice(0);
	holder_policy_during = sp_test_policy(0);
	sp_mutex_unlock(&m);
	SP_WAIT_FOR(sp_sched_getattr(0, &after) == 0 && sp_sched_attr_same(&after, &before));
	return NULL;
}

static void *observer_main(void *arg)
{
	struct sp_runtime_stats st;

	(void)arg;
	/* wait until the critical thread is really blocked */
	SP_WAIT_FOR(sp_runtime_stats(&st) == 0 && st.core.blocks >= 1);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Child body: exit status 0 if everything held. */
static int child(int nice_rlim)
{
	struct rlimit rt = { 0, 0 }, nl = { (rlim_t)nice_rlim, (rlim_t)nice_rlim };
	struct sp_runtime_config cfg;
	struct sp_runtime_stats st;
	int expect_nice = nice_rlim > 1;
	pthread_t h, o;

	/* Raising RLIMIT_NICE needs CAP_SYS_RESOURCE, which some containers
	 * lack: then the nice case cannot be set up here (status 77). */
	if (setrlimit(RLIMIT_NICE, &nl) != 0)
		return 77;
	if (drop_cap_sys_nice() != 0 || setrlimit(RLIMIT_RTPRIO, &rt) != 0)
		return 10;
	sp_runtime_config_default(&cfg);
	cfg.core.throttle_window_ns = 0;
	cfg.core.budget_ns = 0;
	if (sp_runtime_create(&cfg) != 0)
		return 11;
	if (sp_runtime_mode() != (expect_nice ? SP_ACT_NICE : SP_ACT_OBSERVE))
		return 12;
	sp_mutex_init(&m, 0);
	sp_thread_set_critical(0, true);
	pthread_create(&h, NULL, holder_main, &expect_nice);
	if (!SP_WAIT_FOR(__atomic_load_n(&locked, __ATOMIC_ACQUIRE)))
		return 13;
	if (!expect_nice)
		pthread_create(&o, NULL, observer_main, NULL);
	sp_mutex_lock(&m);
	sp_mutex_unlock(&m);
	pthread_join(h, NULL);
	if (!expect_nice)
		pthread_join(o, NULL);
	if (holder_policy_during != SCHED_OTHER)
		return 14; /* never SCHED_FIFO without the capability */
	if (expect_nice && holder_nice_during != 20 - nice_rlim)
		return 15;
	if (!expect_nice && holder_nice_during != 19)
		return 16;
	if (!sp_sched_attr_same(&before, &after))
		return 17;
	sp_runtime_stats(&st);
	if (st.act_boosted_now != 0 || st.core.blockings < 1)
		return 18;
	sp_runtime_destroy();
	return 0;
}

static void run_case(int nice_rlim, const char *expect_msg)
{
	char path[] = "/tmp/sp-noprivXXXXXX";
	char buf[2048] = { 0 };
	int fd = mkstemp(path), status;
	pid_t pid;

	assert_true(fd >= 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd, STDERR_FILENO);
		_exit(child(nice_rlim));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(pread(fd, buf, sizeof(buf) - 1, 0) >= 0);
	close(fd);
	unlink(path);
	printf("child stderr: %s", buf);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		printf("SKIP: cannot raise RLIMIT_NICE here (no CAP_SYS_RESOURCE)\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(status), 0);
	/* said once, clearly */
	assert_non_null(strstr(buf, expect_msg));
	assert_null(strstr(strstr(buf, "superpass:") + 1, "superpass:"));
}

static void test_observe_only(void **state)
{
	(void)state;
	run_case(0, "observe-only");
}

static void test_nice_fallback(void **state)
{
	(void)state;
	run_case(30, "falling back to nice -10");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_observe_only),
		cmocka_unit_test(test_nice_fallback),
	};

	if (geteuid() != 0) {
		printf("SKIP: needs root to set RLIMIT_NICE above the hard limit\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
