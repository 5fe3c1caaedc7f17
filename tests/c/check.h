// SPDX-License-Identifier: BSD-3-Clause
/* The tiny check harness of the plain-C tests: counters and CHECK macros.
 * Each test file is one program, so the counters are per program. */
#ifndef TC_TESTS_C_CHECK_H
#define TC_TESTS_C_CHECK_H
#include <stdio.h>
#include <string.h>

#include "tensorc.h"

static int g_passed = 0;
static int g_failed = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      ++g_passed;                                                              \
    } else {                                                                   \
      ++g_failed;                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

/* A call that must succeed. */
#define CHECK_OK(call)                                                                               \
  do {                                                                                               \
    tc_status st_ = (call);                                                                          \
    if (st_ == TC_OK) {                                                                              \
      ++g_passed;                                                                                    \
    } else {                                                                                         \
      ++g_failed;                                                                                    \
      fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, tc_status_name(st_), \
              tc_last_error_message());                                                              \
    }                                                                                                \
  } while (0)

/* A call that must fail with `code` and a last-error message containing `needle`. */
#define CHECK_FAILS_WITH(call, code, needle)                                                             \
  do {                                                                                                   \
    tc_status st_ = (call);                                                                              \
    if (st_ == (code) && strstr(tc_last_error_message(), (needle))) {                                    \
      ++g_passed;                                                                                        \
    } else {                                                                                             \
      ++g_failed;                                                                                        \
      fprintf(stderr, "%s:%d: %s: expected %s with \"%s\", got %s: \"%s\"\n", __FILE__, __LINE__, #call, \
              tc_status_name(code), needle, tc_status_name(st_), tc_last_error_message());               \
    }                                                                                                    \
  } while (0)

/* Prints the summary; the program's exit status. */
static int check_summary(void) {
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}

#endif
