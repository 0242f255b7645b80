/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The seeded random numbers of the fuzzers (smc_fuzz, hostile_peer
 * mutate): xoshiro256** with its state from splitmix64, so that one
 * 64-bit seed names a whole run and each thread, child or round takes a
 * stream of its own derived from it.  Not for anything secret.
 */
#ifndef SMC_SELFTEST_FUZZ_RNG_H
#define SMC_SELFTEST_FUZZ_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

/* One step of splitmix64: the next value of the sequence *@x walks */
static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The stream @stream of the run seeded @seed */
static inline void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t mix = stream, state = seed ^ splitmix64(&mix);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&state);
}

static inline uint64_t rng_rotl(uint64_t v, int k)
{
	return v << k | v >> (64 - k);
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, out = rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return out;
}

/* 0 .. n - 1, 0 when n is 0 (multiply and shift: no modulo bias) */
static inline uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(((rng_next(r) >> 32) * n) >> 32);
}

/* true in @pct percent of the calls */
static inline int rng_pct(struct rng *r, int pct)
{
	return (int)rng_below(r, 100) < pct;
}

#endif /* SMC_SELFTEST_FUZZ_RNG_H */
