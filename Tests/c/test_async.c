/* test_async.c — every _async operation calls back exactly once, off the main thread. */
#include <stdlib.h>
#include <string.h>

#include "events.h"

static void on_metadata(int st, const fbs_metadata *m, void *u) {
    completion *c = u;
    if (m) { c->number = fbs_metadata_size(m); snprintf(c->text, sizeof c->text, "%s", fbs_metadata_content_type(m) ? fbs_metadata_content_type(m) : ""); }
    completion_record(c, st);
}
static void on_done(int st, void *u) { completion_record(u, st); }
static void on_string(int st, const char *v, void *u) {
    completion *c = u;
    if (v) snprintf(c->text, sizeof c->text, "%s", v);
    completion_record(c, st);
}
static void on_data(int st, const void *b, size_t n, void *u) {
    completion *c = u;
    c->length = n;
    if (b && n) memcpy(c->text, b, n < sizeof c->text ? n : sizeof c->text);
    completion_record(c, st);
}
/* get_data_into_async: the bytes passed are the allocator's memory, now the test's. */
static void *allocated;
static void *allocate_for_test(size_t n, void *u) { (void)u; return allocated = malloc(n ? n : 1); }
static void release_for_test(void *m, void *u) { (void)u; free(m); allocated = NULL; }
static void on_owned_data(int st, const void *b, size_t n, void *u) {
    completion *c = u;
    c->number = b != NULL && b == allocated;
    on_data(st, b, n, u);
    free((void *)b);
}
static void on_list(int st, const fbs_list_result *l, void *u) {
    completion *c = u;
    if (l) c->number = (int64_t)(fbs_list_result_item_count(l) * 100 + fbs_list_result_prefix_count(l));
    completion_record(c, st);
}

/* Waits for the one call, then makes sure no second one follows. */
static void check_once(completion *c, int want_status, const char *what) {
    if (!completion_wait(c, 15000)) { check_fail(__FILE__, __LINE__, "%s: no callback", what); return; }
    sleep_ms(150);
    if (c->calls != 1) check_fail(__FILE__, __LINE__, "%s: %d callbacks", what, c->calls);
    else check_pass();
    if (c->on_main_thread) check_fail(__FILE__, __LINE__, "%s: callback on the main thread", what);
    /* The message belongs to the callback thread (checked below), not to this one. */
    if (c->status != want_status)
        check_fail(__FILE__, __LINE__, "%s: status %s, expected %s", what, fbs_error_name(c->status), fbs_error_name(want_status));
    else check_pass();
    if (want_status != FBS_OK && !c->message[0])
        check_fail(__FILE__, __LINE__, "%s: empty fbs_last_error_message() in the callback", what);
}

TEST(async_operations) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(upload_bytes(s, "async/a.txt", "hello", 5));
    fbs_reference *r = new_ref(s, "async/a.txt"), *dir = new_ref(s, "async"),
                  *missing = new_ref(s, "async/missing");
    completion c;

    completion_init(&c);
    REQUIRE_OK(fbs_reference_get_metadata_async(r, on_metadata, &c));
    check_once(&c, FBS_OK, "get_metadata_async");
    CHECK_EQ_INT(c.number, 5);

    completion_init(&c);
    REQUIRE_OK(fbs_reference_get_metadata_async(missing, on_metadata, &c));
    check_once(&c, FBS_ERR_OBJECT_NOT_FOUND, "get_metadata_async (missing)");

    fbs_metadata *changes = NULL;
    REQUIRE_OK(fbs_metadata_new(&changes));
    REQUIRE_OK(fbs_metadata_set_content_type(changes, "text/x-async"));
    completion_init(&c);
    REQUIRE_OK(fbs_reference_update_metadata_async(r, changes, on_metadata, &c));
    fbs_metadata_free(changes);   /* copied at the call */
    check_once(&c, FBS_OK, "update_metadata_async");
    CHECK_STR(c.text, "text/x-async");

    completion_init(&c);
    REQUIRE_OK(fbs_reference_download_url_async(r, on_string, &c));
    check_once(&c, FBS_OK, "download_url_async");
    CHECK(strstr(c.text, "alt=media") != NULL);

    completion_init(&c);
    REQUIRE_OK(fbs_reference_get_data_async(r, 100, on_data, &c));
    check_once(&c, FBS_OK, "get_data_async");
    CHECK(c.length == 5 && memcmp(c.text, "hello", 5) == 0);

    completion_init(&c);
    REQUIRE_OK(fbs_reference_get_data_async(r, 2, on_data, &c));
    check_once(&c, FBS_ERR_DOWNLOAD_SIZE_EXCEEDED, "get_data_async (too small)");

    fbs_allocator allocator = {allocate_for_test, release_for_test, NULL};
    completion_init(&c);
    REQUIRE_OK(fbs_reference_get_data_into_async(r, 100, &allocator, on_owned_data, &c));
    check_once(&c, FBS_OK, "get_data_into_async");
    CHECK(c.length == 5 && memcmp(c.text, "hello", 5) == 0 && c.number == 1);

    completion_init(&c);
    REQUIRE_OK(fbs_reference_get_data_into_async(missing, 100, &allocator, on_owned_data, &c));
    check_once(&c, FBS_ERR_OBJECT_NOT_FOUND, "get_data_into_async (missing)");

    completion_init(&c);
    REQUIRE_OK(fbs_reference_list_async(dir, 10, NULL, on_list, &c));
    check_once(&c, FBS_OK, "list_async");
    CHECK_EQ_INT(c.number, 100);

    completion_init(&c);
    REQUIRE_OK(fbs_reference_list_all_async(dir, on_list, &c));
    check_once(&c, FBS_OK, "list_all_async");
    CHECK_EQ_INT(c.number, 100);

    completion_init(&c);
    REQUIRE_OK(fbs_reference_delete_async(r, on_done, &c));
    check_once(&c, FBS_OK, "delete_async");

    completion_init(&c);
    REQUIRE_OK(fbs_reference_delete_async(r, on_done, &c));
    check_once(&c, FBS_ERR_OBJECT_NOT_FOUND, "delete_async (again)");

    fbs_reference_free(r);
    fbs_reference_free(dir);
    fbs_reference_free(missing);
    fbs_storage_free(s);
}

TEST(async_callback_runs_when_storage_freed_first) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(upload_bytes(s, "async/slow.txt", "x", 1));
    emu_fault_delay(EMU, (fault_match){"GET", NULL, object_prefix("async/slow.txt"), NULL, FOREVER}, 3000);
    fbs_reference *r = new_ref(s, "async/slow.txt");
    completion c;
    completion_init(&c);
    REQUIRE_OK(fbs_reference_get_metadata_async(r, on_metadata, &c));
    double start = now_s();
    fbs_storage_free(s);
    CHECK(now_s() - start < 2.5);       /* cancels instead of waiting for the server */
    CHECK_EQ_INT(c.calls, 1);           /* ran before free returned */
    CHECK_EQ_INT(c.status, FBS_ERR_CANCELLED);
    sleep_ms(100);
    CHECK_EQ_INT(c.calls, 1);
    fbs_reference_free(r);
}
