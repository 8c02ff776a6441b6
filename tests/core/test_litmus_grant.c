// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Litmus-style stress of the grant publish/scan protocol (lib/core/sp_grant.c),
 * the part of the core whose correctness rests on memory ordering rather
 * than on locks. Three tests, each a tight race repeated many times with the
 * two sides started together:
 *
 *  test_publish_vs_release ("store buffering", on the real core): a critical
 *  waiter blocks on a lock (its walk creates a grant for the holder: fields,
 *  refcount, state ACTIVE with a store-release, a full barrier, then a
 *  look at the lock) while, at the same instant, the holder releases it
 *  (a cmpxchg on the owner, a full barrier on success, then a scan of the
 *  grants). Either the creator sees the release and ends its own grant, or
 *  the releaser sees the grant and ends it: no tick runs, so a grant still
 *  active afterwards is one both sides missed. Dropping either full
 *  barrier (sp_smp_mb() after the publish, or a relaxed owner update)
 *  allows exactly that outcome, on x86 too: its store buffer delays the
 *  ACTIVE store past the load of the owner.
 *
 *  test_message_passing (the same protocol's shape on the sp_os.h
 *  primitives, lib/os): a publisher claims a slot (cmpxchg FREE ->
 *  CLAIMING), writes its payload with plain stores and publishes it with
 *  sp_atomic_store_release (as sp_grant_create does); a scanner loads the
 *  state with sp_atomic_load_acquire, reads an atomic tag to decide (as
 *  sp_grant_matches does), takes the slot with a cmpxchg ACTIVE -> ENDING,
 *  reads the plain payload (as sp_grant_end reads target_ref) and frees it
 *  with sp_atomic_store_release. A dropped release makes the payload
 *  accesses a data race, which ThreadSanitizer reports (this file runs in
 *  the tsan build of tests/run-all.sh); on a weakly ordered CPU (arm64) a
 *  dropped release or acquire shows up as a stale tag or payload, which
 *  the checks below count. On x86, and under qemu-user on an x86 host
 *  (TCG maps guest accesses onto the host's TSO order), hardware never
 *  reorders those, so there only ThreadSanitizer can see them.
 *
 *  test_store_buffering (the first test's pair, reduced to two words on
 *  the sp_os.h primitives): "store x (the grant ACTIVE), full barrier,
 *  load y (the owner)" against "cmpxchg y (the release), load x". Both
 *  loads missing the other side's store is forbidden, and counted.
 *
 * What was seen when each ordering was removed on purpose (x86-64 host,
 * 2 CPUs; the defines are never set in the build):
 *  - -DSP_LITMUS_NO_MB (sp_smp_mb() out of test_store_buffering): 78 of
 *    200000 rounds had both sides miss: the test fails on x86 too.
 *  - the sp_smp_mb() after the publish removed from sp_grant_create
 *    itself: test_publish_vs_release passed 2 million rounds on x86. The
 *    store of ACTIVE leaves x86's store buffer within nanoseconds, and the
 *    real paths around it are hundreds of nanoseconds long; a weakly
 *    ordered CPU widens that window, and test_store_buffering is the
 *    reduced form that does catch it here.
 *  - -DSP_LITMUS_RELAXED_PUBLISH or -DSP_LITMUS_RELAXED_FREE: under
 *    ThreadSanitizer, a data race on the payload (exit 66); not visible
 *    without it on x86.
 *  - -DSP_LITMUS_RELAXED_SCAN: nothing on x86 nor under ThreadSanitizer
 *    (the tag is an atomic, and the cmpxchg before the payload reads
 *    acquires anyway); only a weakly ordered CPU can show the stale tags
 *    this test counts.
 *
 * SP_LITMUS_ROUNDS=N sets the rounds (test_message_passing runs 4 N,
 * test_store_buffering 5 N).
 */
#include "sp_test_core.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "sp_os.h"

#if defined(__SANITIZE_THREAD__)
#define DEFAULT_ROUNDS 4000
#else
#define DEFAULT_ROUNDS 40000
#endif

/* -DSP_LITMUS_RELAXED_PUBLISH / _SCAN / _FREE: the message-passing test
 * with that release or acquire replaced by a relaxed access. */
#ifdef SP_LITMUS_RELAXED_PUBLISH
#define sp_lt_publish(a, v) sp_atomic_store((a), (v))
#else
#define sp_lt_publish(a, v) sp_atomic_store_release((a), (v))
#endif
#ifdef SP_LITMUS_RELAXED_SCAN
#define sp_lt_scan(a) sp_atomic_load(a)
#else
#define sp_lt_scan(a) sp_atomic_load_acquire(a)
#endif
#ifdef SP_LITMUS_RELAXED_FREE
#define sp_lt_free(a, v) sp_atomic_store((a), (v))
#else
#define sp_lt_free(a, v) sp_atomic_store_release((a), (v))
#endif

static unsigned rounds(void)
{
	const char *env = getenv("SP_LITMUS_ROUNDS");

	return env && atoi(env) > 0 ? (unsigned)atoi(env) : DEFAULT_ROUNDS;
}

/* Both sides of a round spin on this, so that they start together; each
 * then waits a different, varying number of pauses so that the two paths
 * overlap at every offset over the rounds. */
struct sp_lt_sync {
	sp_atomic64_t go;    /* round number the second thread may run */
	sp_atomic64_t done;  /* round number it finished */
	sp_atomic64_t stop;
};

static void sp_lt_pause(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
}

static uint64_t sp_lt_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- test_publish_vs_release: the real core ---- */

#define HOLDER 10
#define WAITER 11
#define LOCK 0x4000

static struct sp_rec_host host;
static struct sp_lt_sync pr_sync;
static sp_atomic64_t pr_errors;   /* failed calls in the waiter thread */

static void *waiter_main(void *arg)
{
	struct sp_core *core = arg;
	uint64_t r, seed = 0x2545F4914F6CDD1Dull;

	for (r = 1;; r++) {
		while (sp_atomic_load_acquire(&pr_sync.go) < r)
			if (sp_atomic_load(&pr_sync.stop))
				return NULL;
		sp_lt_pause(sp_lt_rand(&seed) % 64);
		/* The walk finds the holder and creates its grant. */
		if (sp_lock_blocked(core, WAITER, LOCK, SP_HOLD_EXCL) != 0)
			sp_atomic_add(&pr_errors, 1);   /* cmocka asserts only in main */
		sp_atomic_store_release(&pr_sync.done, r);
	}
}

static void test_publish_vs_release(void **state)
{
	enum { SPAN_MIN = 2048, SPAN_MAX = 1 << 18 };
	unsigned n = rounds(), overlapped = 0, span = SPAN_MIN;
	uint64_t seed = 0x9E3779B97F4A7C15ull, grants_before, ends_before;
	struct sp_config cfg;
	struct sp_core *core;
	struct sp_stats st;
	pthread_t th;

	(void)state;
	sp_config_default(&cfg);
	cfg.budget_ns = 0;   /* nothing but the two sides ends a grant */
	core = sp_test_core(&host, &cfg);
	assert_int_equal(sp_task_set_critical(core, WAITER, true), 0);
	memset(&pr_sync, 0, sizeof(pr_sync));
	sp_atomic_store(&pr_errors, 0);
	assert_int_equal(pthread_create(&th, NULL, waiter_main, core), 0);

	for (uint64_t r = 1; r <= n; r++) {
		sp_core_stats(core, &st);
		grants_before = st.grants;
		ends_before = st.ends_release;
		assert_int_equal(sp_lock_acquired(core, HOLDER, LOCK, SP_HOLD_EXCL), 0);
		sp_atomic_store_release(&pr_sync.go, r);
		/* The waiter's path to the publish is longer than ours to
		 * the release: start it first, then release at a varying
		 * offset. How much longer depends on the build (TSan slows
		 * the waiter's walk far more than our release) and on where
		 * the waiter runs, so the offset's range follows the race:
		 * it widens while the release keeps winning (no grant made)
		 * and narrows again once the grant comes first. */
		sp_lt_pause(sp_lt_rand(&seed) % span);
		assert_int_equal(sp_lock_released(core, HOLDER, LOCK, SP_HOLD_EXCL), 0);
		while (sp_atomic_load_acquire(&pr_sync.done) < r)
			;
		sp_core_stats(core, &st);
		if (st.grants_now != 0)
			fail_msg("round %llu: a grant outlived its lock's release (grants_now %llu): "
				 "the publish in sp_grant_create and the release's scan missed each other",
				 (unsigned long long)r, (unsigned long long)st.grants_now);
		/* A grant was made and ended within this round: the two sides
		 * met inside the window the barriers guard. */
		if (st.grants > grants_before && st.ends_release > ends_before)
			overlapped++;
		if (st.grants == grants_before)
			span = span < SPAN_MAX ? span * 2 : SPAN_MAX;
		else if (span > SPAN_MIN)
			span /= 2;
		assert_int_equal(sp_lock_unblocked(core, WAITER, LOCK, false), 0);
	}
	sp_atomic_store(&pr_sync.stop, 1);
	assert_int_equal(pthread_join(th, NULL), 0);

	assert_int_equal(sp_atomic_load(&pr_errors), 0);
	sp_core_stats(core, &st);
	printf("publish_vs_release: %u rounds, %u with a grant created and ended by a release "
	       "in the same round, %llu grants\n",
	       n, overlapped, (unsigned long long)st.grants);
	assert_int_equal(st.grants_now, 0);
	assert_int_equal(st.boosted_now, 0);
	assert_int_equal(st.fast_tracks, st.restores);
	assert_int_equal(sp_test_boosted_count(&host), 0);
	assert_int_equal(host.bad_calls, 0);
	/* The race must have been run, not avoided: some rounds had the
	 * grant made before the release. */
	assert_true(overlapped > 0);
	sp_test_end(&host);
}

/* ---- test_message_passing: the protocol on the sp_os.h primitives ---- */

#define NSLOTS 4
#define NPAYLOAD 4

enum { LT_FREE = 0, LT_CLAIMING = 1, LT_ACTIVE = 2, LT_ENDING = 3 };

struct sp_lt_slot {
	sp_atomic64_t state;          /* gen << 2 | LT_* */
	sp_atomic64_t tag;            /* gen, read before the slot is taken */
	uint64_t payload[NPAYLOAD];   /* plain: only its owner touches it */
};

static struct sp_lt_slot slots[NSLOTS];
static sp_atomic64_t mp_stop, mp_taken, mp_stale_tag, mp_bad_payload;

static uint64_t payload_of(uint64_t gen, unsigned i)
{
	return gen * 0x9E3779B97F4A7C15ull + i;
}

static void *publisher_main(void *arg)
{
	uint64_t n = *(unsigned *)arg, published = 0;

	while (published < n) {
		for (unsigned s = 0; s < NSLOTS && published < n; s++) {
			struct sp_lt_slot *sl = &slots[s];
			uint64_t w = sp_atomic_load(&sl->state), gen = (w >> 2) + 1;

			if ((w & 3) != LT_FREE || !sp_atomic_cmpxchg(&sl->state, w, gen << 2 | LT_CLAIMING))
				continue;
			/* Only the claimer writes a CLAIMING slot (sp_grant_create). */
			for (unsigned i = 0; i < NPAYLOAD; i++)
				sl->payload[i] = payload_of(gen, i);
			sp_atomic_store(&sl->tag, gen);
			sp_lt_publish(&sl->state, gen << 2 | LT_ACTIVE);
			published++;
		}
	}
	sp_atomic_store_release(&mp_stop, 1);
	return NULL;
}

static void *scanner_main(void *arg)
{
	(void)arg;
	for (;;) {
		bool stop = sp_atomic_load_acquire(&mp_stop);
		bool any = false;

		for (unsigned s = 0; s < NSLOTS; s++) {
			struct sp_lt_slot *sl = &slots[s];
			uint64_t w = sp_lt_scan(&sl->state), gen = w >> 2;

			if ((w & 3) != LT_ACTIVE)
				continue;
			any = true;
			/* What sp_grant_matches reads before it decides: the tag
			 * is at least this generation's (the slot may have been
			 * reused since, never rolled back). */
			if (sp_atomic_load(&sl->tag) < gen)
				sp_atomic_add(&mp_stale_tag, 1);
			if (!sp_atomic_cmpxchg(&sl->state, w, gen << 2 | LT_ENDING))
				continue;
			/* Ours now: what sp_grant_end reads after its cmpxchg. */
			for (unsigned i = 0; i < NPAYLOAD; i++)
				if (sl->payload[i] != payload_of(gen, i))
					sp_atomic_add(&mp_bad_payload, 1);
			sp_atomic_add(&mp_taken, 1);
			sp_lt_free(&sl->state, gen << 2 | LT_FREE);
		}
		if (stop && !any)
			return NULL;
	}
}

static void test_message_passing(void **state)
{
	unsigned n = rounds() * 4;
	pthread_t pub, scan;

	(void)state;
	memset(slots, 0, sizeof(slots));
	sp_atomic_store(&mp_stop, 0);
	sp_atomic_store(&mp_taken, 0);
	sp_atomic_store(&mp_stale_tag, 0);
	sp_atomic_store(&mp_bad_payload, 0);
	assert_int_equal(pthread_create(&scan, NULL, scanner_main, NULL), 0);
	assert_int_equal(pthread_create(&pub, NULL, publisher_main, &n), 0);
	assert_int_equal(pthread_join(pub, NULL), 0);
	assert_int_equal(pthread_join(scan, NULL), 0);
	printf("message_passing: %u slots published and taken, %llu stale tags, "
	       "%llu stale payloads\n",
	       n, (unsigned long long)sp_atomic_load(&mp_stale_tag),
	       (unsigned long long)sp_atomic_load(&mp_bad_payload));
	/* Every publish was taken exactly once, and seen whole. */
	assert_int_equal(sp_atomic_load(&mp_taken), n);
	assert_int_equal(sp_atomic_load(&mp_stale_tag), 0);
	assert_int_equal(sp_atomic_load(&mp_bad_payload), 0);
}

/* ---- test_store_buffering: the publish/validate pair, on sp_os.h ---- */

/* x: the grant's state (0 CLAIMING, 1 ACTIVE); y: the lock's owner word
 * (0 held, 1 released). One pair per round, so nothing needs resetting. */
struct sp_lt_sb {
	sp_atomic64_t x, y;
	uint64_t r_creator, r_releaser;   /* what each side's load saw */
};

#define SB_PAUSE_MAX 256

static struct sp_lt_sb *sb;
static struct sp_lt_sync sb_sync;

static void *sb_releaser_main(void *arg)
{
	uint64_t n = *(unsigned *)arg;

	for (uint64_t r = 1; r <= n; r++) {
		struct sp_lt_sb *p = &sb[r - 1];

		while (sp_atomic_load_acquire(&sb_sync.go) < r)
			;
		/* sp_lock_released: cmpxchg on the owner (a full barrier on
		 * success), then the scan reads the grant's state. */
		if (sp_atomic_cmpxchg(&p->y, 0, 1))
			p->r_releaser = sp_atomic_load_acquire(&p->x);
		else
			p->r_releaser = 2;
		sp_atomic_store_release(&sb_sync.done, r);
	}
	return NULL;
}

static void test_store_buffering(void **state)
{
	unsigned n = rounds() * 5, both_missed = 0, creator_saw = 0, releaser_saw = 0;
	uint64_t seed = 0xD1B54A32D192ED03ull;
	pthread_t th;

	(void)state;
	sb = calloc(n, sizeof(*sb));
	assert_non_null(sb);
	memset(&sb_sync, 0, sizeof(sb_sync));
	assert_int_equal(pthread_create(&th, NULL, sb_releaser_main, &n), 0);
	for (uint64_t r = 1; r <= n; r++) {
		struct sp_lt_sb *p = &sb[r - 1];

		sp_atomic_store_release(&sb_sync.go, r);
		sp_lt_pause(sp_lt_rand(&seed) % SB_PAUSE_MAX);
		/* sp_grant_create: publish ACTIVE (store-release), full
		 * barrier, then sp_grant_valid reads the owner. */
		sp_atomic_store_release(&p->x, 1);
#ifndef SP_LITMUS_NO_MB
		sp_smp_mb();
#endif
		p->r_creator = sp_atomic_load_acquire(&p->y);
		while (sp_atomic_load_acquire(&sb_sync.done) < r)
			;
	}
	assert_int_equal(pthread_join(th, NULL), 0);
	for (unsigned i = 0; i < n; i++) {
		assert_int_not_equal(sb[i].r_releaser, 2);
		both_missed += sb[i].r_creator == 0 && sb[i].r_releaser == 0;
		creator_saw += sb[i].r_creator == 1;
		releaser_saw += sb[i].r_releaser == 1;
	}
	free(sb);
	printf("store_buffering: %u rounds: creator saw the release in %u, releaser saw the grant "
	       "in %u, both missed in %u\n",
	       n, creator_saw, releaser_saw, both_missed);
	/* Nobody ends the grant: forbidden with both full barriers. */
	assert_int_equal(both_missed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_publish_vs_release),
		cmocka_unit_test(test_message_passing),
		cmocka_unit_test(test_store_buffering),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
