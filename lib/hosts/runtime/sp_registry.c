// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Thread registry: every thread that touches an instrumented lock gets a
 * task in the core (tid), a name, a critical flag, and a thread-exit hook
 * that tells the core the task is gone (which ends its grants, so a thread
 * that exits while fast-tracked is restored before it disappears).
 *
 * Critical threads are chosen explicitly (sp_thread_set_critical) or by
 * name (SUPERPASS_CRITICAL for the interposer). Names are checked again on
 * the slow path before a thread blocks, because programs often name a
 * thread after it has already taken locks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sp_instr_holds.h"
#include "sp_rt.h"
#include "sp_os.h"

#define SP_REG_SLOTS 1024u
#define SP_NAMES_MAX (SP_RT_NAMES_MAX + 3) /* ",a,b," and the NUL */

SP_TLS struct sp_rt_thread sp_rt_self_state;

struct sp_reg_entry {
	sp_tid_t tid;
	char name[16];
	int critical;
};

static struct {
	pthread_mutex_t lock;
	struct sp_reg_entry e[SP_REG_SLOTS];
	pthread_key_t key;
	int key_ok;
	char names[SP_NAMES_MAX]; /* ",a,b," for substring matching */
	int have_names;
	/* names seen (kept after their threads exit) and critical names that
	 * matched; both under the lock */
	char seen[SP_RT_SEEN_MAX][16];
	uint32_t nr_seen, seen_more;
	char matched[SP_RT_SEEN_MAX][16];
	uint32_t nr_matched;
} sp_reg = { .lock = PTHREAD_MUTEX_INITIALIZER };

static pthread_once_t sp_reg_once = PTHREAD_ONCE_INIT;

/* Adds @name to @set of *@n (no duplicates); false when it is full. Under
 * the lock. */
static bool sp_reg_add_name(char (*set)[16], uint32_t *n, const char *name)
{
	for (uint32_t i = 0; i < *n; i++)
		if (!strncmp(set[i], name, 15))
			return true;
	if (*n >= SP_RT_SEEN_MAX)
		return false;
	strncpy(set[*n], name, 15);
	set[*n][15] = 0;
	(*n)++;
	return true;
}

void sp_rt_registry_seen(void (*fn)(void *arg, const char *name, int matched), void *arg,
			 uint32_t *more)
{
	sp_rt_lock(&sp_reg.lock);
	for (uint32_t i = 0; i < sp_reg.nr_seen; i++)
		fn(arg, sp_reg.seen[i], 0);
	for (uint32_t i = 0; i < sp_reg.nr_matched; i++)
		fn(arg, sp_reg.matched[i], 1);
	*more = sp_reg.seen_more;
	sp_rt_unlock(&sp_reg.lock);
}

void sp_rt_registry_note(sp_tid_t tid, const char *name, int critical)
{
	struct sp_reg_entry *free_e = NULL;

	sp_rt_lock(&sp_reg.lock);
	if (name && name[0] && !sp_reg_add_name(sp_reg.seen, &sp_reg.nr_seen, name))
		sp_reg.seen_more++; /* may count a name twice: "at least" */
	for (uint32_t i = 0; i < SP_REG_SLOTS; i++) {
		struct sp_reg_entry *e = &sp_reg.e[i];

		if (e->tid == tid) {
			free_e = e;
			break;
		}
		if (e->tid == 0 && !free_e)
			free_e = e;
	}
	if (free_e) {
		free_e->tid = tid;
		if (name) {
			strncpy(free_e->name, name, sizeof(free_e->name) - 1);
			free_e->name[sizeof(free_e->name) - 1] = 0;
		}
		if (critical >= 0)
			free_e->critical = critical;
	}
	sp_rt_unlock(&sp_reg.lock);
}

static void sp_reg_forget(sp_tid_t tid)
{
	sp_rt_lock(&sp_reg.lock);
	for (uint32_t i = 0; i < SP_REG_SLOTS; i++)
		if (sp_reg.e[i].tid == tid)
			memset(&sp_reg.e[i], 0, sizeof(sp_reg.e[i]));
	sp_rt_unlock(&sp_reg.lock);
}

void sp_rt_registry_each(void (*fn)(void *arg, sp_tid_t tid, const char *name, int crit),
			 void *arg)
{
	sp_rt_lock(&sp_reg.lock);
	for (uint32_t i = 0; i < SP_REG_SLOTS; i++)
		if (sp_reg.e[i].tid)
			fn(arg, sp_reg.e[i].tid, sp_reg.e[i].name, sp_reg.e[i].critical);
	sp_rt_unlock(&sp_reg.lock);
}

uint32_t sp_rt_registry_tids(sp_tid_t *out, uint32_t cap)
{
	uint32_t n = 0;

	sp_rt_lock(&sp_reg.lock);
	for (uint32_t i = 0; i < SP_REG_SLOTS && n < cap; i++)
		if (sp_reg.e[i].tid)
			out[n++] = sp_reg.e[i].tid;
	sp_rt_unlock(&sp_reg.lock);
	return n;
}

void sp_rt_registry_reset(void)
{
	/* After fork: the lock may be held by a thread that no longer exists. */
	pthread_mutex_init(&sp_reg.lock, NULL);
	memset(sp_reg.e, 0, sizeof(sp_reg.e));
	/* the child reports its own threads */
	sp_reg.nr_seen = sp_reg.seen_more = sp_reg.nr_matched = 0;
}

/* Thread exit: end the task in the core (its grants are restored). */
static void sp_reg_thread_exit(void *arg)
{
	(void)arg;
	sp_rt_thread_leave();
	sp_rt_self_state.exited = 1;
}

/*
 * The calling thread leaves: it exits, or execs (or spawns while boosted,
 * lib/hosts/preload/sp_preload_exec.c). The core forgets the task (which ends
 * its grants and waits), the actuator puts back what it set on it now, and
 * a later lock call registers it again as a new task.
 */
void sp_rt_thread_leave(void)
{
	struct sp_rt_thread *t = &sp_rt_self_state;
	struct sp_core *core;

	if (!t->tid)
		return;
	sp_rt_enter();
	core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);
	if (core && t->gen == __atomic_load_n(&sp_rt_gen, __ATOMIC_RELAXED) && !sp_rt_off)
		sp_task_exit(core, t->tid);
	/* The core no longer wants this task boosted; undo what we set on
	 * it ourselves, now, rather than leave it to the worker: once the
	 * thread is gone its tid may belong to another one. */
	sp_act_thread_exit(t->tid);
	/* A wait going on (an exec from a signal handler, which may fail) is
	 * no critical wait any more: no lock is handed to it, and the thread
	 * itself, not critical now, would yield to its own published wait
	 * when the lock came (sp_ho_yield_slow) and sleep out the bound. */
	sp_iw_wait_ends();
	sp_wk_thread_leave();
	sp_reg_forget(t->tid);
	sp_where_forget(t->tid);
	sp_rt_leave();
	t->gen = 0;  /* a later lock call (a destructor, a failed exec) re-registers */
	t->critical = 0;
}

static void sp_reg_make_key(void)
{
	sp_reg.key_ok = pthread_key_create(&sp_reg.key, sp_reg_thread_exit) == 0;
}

static int sp_reg_name_matches(sp_tid_t tid, const char *name)
{
	char pat[20];
	size_t n = strlen(name);

	if (!sp_reg.have_names)
		return -1;
	if ((pid_t)tid == getpid() && strstr(sp_reg.names, ",main,"))
		return 1;
	if (n == 0 || n > 15)
		return 0;
	pat[0] = ',';
	memcpy(pat + 1, name, n);
	pat[n + 1] = ',';
	pat[n + 2] = 0;
	return strstr(sp_reg.names, pat) != NULL;
}

int sp_rt_set_critical_names(const char *csv)
{
	size_t n = csv ? strlen(csv) : 0;

	if (!csv || n == 0 || n + 3 > sizeof(sp_reg.names)) {
		sp_reg.have_names = 0;
		return n > SP_RT_NAMES_MAX ? -ENAMETOOLONG : 0;
	}
	sp_reg.names[0] = ',';
	memcpy(sp_reg.names + 1, csv, n);
	sp_reg.names[n + 1] = ',';
	sp_reg.names[n + 2] = 0;
	sp_reg.have_names = 1;
	return 0;
}

int sp_rt_have_critical_names(void)
{
	return sp_reg.have_names;
}

/* A thread renamed after it registered: its new name is seen too (the
 * lock only when the name changed). */
static void sp_reg_note_seen(struct sp_rt_thread *t, const char *name)
{
	if (!name[0] || !strncmp(t->seen_name, name, sizeof(t->seen_name)))
		return;
	memcpy(t->seen_name, name, sizeof(t->seen_name));
	sp_rt_lock(&sp_reg.lock);
	if (!sp_reg_add_name(sp_reg.seen, &sp_reg.nr_seen, name))
		sp_reg.seen_more++;
	sp_rt_unlock(&sp_reg.lock);
}

/* Which critical name made the thread critical, for the statistics. */
static void sp_reg_note_matched(sp_tid_t tid, const char *name)
{
	char pat[20];
	size_t n = strlen(name);
	bool by_name = false, is_main = (pid_t)tid == getpid() && strstr(sp_reg.names, ",main,");

	if (n && n <= 15) {
		pat[0] = ',';
		memcpy(pat + 1, name, n);
		pat[n + 1] = ',';
		pat[n + 2] = 0;
		by_name = strstr(sp_reg.names, pat) != NULL;
	}
	sp_rt_lock(&sp_reg.lock);
	if (by_name)
		sp_reg_add_name(sp_reg.matched, &sp_reg.nr_matched, name);
	if (is_main)
		sp_reg_add_name(sp_reg.matched, &sp_reg.nr_matched, "main");
	sp_rt_unlock(&sp_reg.lock);
}

void sp_rt_thread_check_name(struct sp_core *core)
{
	struct sp_rt_thread *t = &sp_rt_self_state;
	char name[17] = { 0 };
	int m;

	if (!sp_reg.have_names)
		return;
	prctl(PR_GET_NAME, name, 0, 0, 0);
	sp_reg_note_seen(t, name);
	m = sp_reg_name_matches(t->tid, name);
	if (m >= 0 && m != t->critical) {
		t->critical = m;
		sp_task_set_critical(core, t->tid, m);
		sp_rt_registry_note(t->tid, name, m);
		if (m > 0)
			sp_reg_note_matched(t->tid, name);
	}
}

sp_tid_t sp_rt_thread_slow(struct sp_core *core)
{
	struct sp_rt_thread *t = &sp_rt_self_state;
	char name[17] = { 0 };

	if (!t->tid)
		t->tid = (sp_tid_t)sp_os_sys(SYS_gettid, 0, 0, 0, 0);
	if (!core)
		return t->tid;
	t->gen = __atomic_load_n(&sp_rt_gen, __ATOMIC_RELAXED);
	t->critical = 0;
	sp_rt_enter();
	sp_task_register(core, t->tid);
	sp_where_publish(t->tid);
	pthread_once(&sp_reg_once, sp_reg_make_key);
	if (sp_reg.key_ok)
		pthread_setspecific(sp_reg.key, (void *)1);
	prctl(PR_GET_NAME, name, 0, 0, 0);
	sp_rt_registry_note(t->tid, name, 0);
	memcpy(t->seen_name, name, sizeof(t->seen_name));
	sp_rt_thread_check_name(core);
	sp_rt_leave();
	return t->tid;
}

/* ---- public thread API ---- */

sp_tid_t sp_thread_self(void)
{
	struct sp_rt_thread *t = &sp_rt_self_state;

	if (!t->tid)
		t->tid = (sp_tid_t)sp_os_sys(SYS_gettid, 0, 0, 0, 0);
	return t->tid;
}

int sp_thread_register(const char *name)
{
	struct sp_core *core = sp_rt_core();

	if (name)
		pthread_setname_np(pthread_self(), name);
	if (!core)
		return -ENODEV;
	sp_rt_thread(core);
	if (name)
		sp_rt_registry_note(sp_rt_self_state.tid, name, -1);
	return 0;
}

int sp_thread_set_critical(sp_tid_t tid, bool critical)
{
	struct sp_core *core = sp_rt_core();
	int rc;

	if (!core)
		return -ENODEV;
	if (tid == 0)
		tid = sp_rt_thread(core);
	sp_rt_enter();
	rc = sp_task_register(core, tid);
	if (rc >= 0)
		rc = sp_task_set_critical(core, tid, critical);
	sp_rt_leave();
	if (rc < 0)
		return rc;
	if (tid == sp_rt_self_state.tid)
		sp_rt_self_state.critical = critical;
	sp_rt_registry_note(tid, NULL, critical);
	return 0;
}

int sp_thread_fast_tracked(sp_tid_t tid)
{
	return sp_act_is_boosted(tid);
}

/* The interposer's exec wrappers do this for unmodified programs
 * (lib/hosts/preload/sp_preload_exec.c); a program linked to libsuperpass has
 * no wrappers and calls it itself. */
void sp_thread_before_exec(void)
{
	if (!sp_rt_guarded())
		sp_rt_thread_leave();
	else
		sp_wk_before_exec_guarded();
}
