/* misuse.h — shared pieces of the misuse matrix (test_misuse*.c). No emulator needed:
 * every case fails during the call, before any request. */
#ifndef FBS_TEST_MISUSE_H
#define FBS_TEST_MISUSE_H

#include "harness.h"

/* One misuse case: got must equal want, with a non-empty message when want != FBS_OK. */
#define CASE(call, want) check_code((call), (want), #call, __FILE__, __LINE__)
#define CASE_NAMED(name, call, want) check_code((call), (want), name, __FILE__, __LINE__)

/* A storage pointed at a closed local port: tasks started on it never reach a server. */
fbs_storage *offline_storage(void);

/* Runs fn(arg) on a fresh thread (whose last error starts empty) and checks that it left a
 * non-empty fbs_last_error_message(): the contract for *_free on a bad handle. */
void check_sets_error_on_fresh_thread(const char *what, void (*fn)(void *), void *arg);

/* Invalid UTF-8 (a lone continuation byte, an overlong encoding). */
extern const char BAD_UTF8[];
extern const char BAD_UTF8_OVERLONG[];

#endif
