/* 64-bit integers in JSON that JavaScript reads: a number up to 2^53,
 * beyond it a "0x..." string (a pointer's high bits, a negative value's
 * two's complement), which JSON.parse would otherwise round. */
#ifndef FLAMEBPF_JSON_U64_H
#define FLAMEBPF_JSON_U64_H

#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#define JSON_U64_SAFE_MAX (1ULL << 53)

void json_u64__put(FILE *f, uint64_t v);

/* The value o holds, written by json_u64__put: a non-negative integer or
 * a string of one (any base strtoull takes). Returns 0, or -EINVAL for
 * anything else. */
int json_u64__get(json_object *o, uint64_t *v);

#endif
