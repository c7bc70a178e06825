/* test_metadata.c — get/update metadata semantics against the server. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

/* Uploads "meta/object.txt" with every writable field and two custom keys. */
static fbs_reference *upload_with_everything(fbs_storage *s) {
    fbs_metadata *md = NULL;
    REQUIRE_OK(fbs_metadata_new(&md));
    REQUIRE_OK(fbs_metadata_set_content_type(md, "text/plain"));
    REQUIRE_OK(fbs_metadata_set_cache_control(md, "no-cache"));
    REQUIRE_OK(fbs_metadata_set_content_disposition(md, "attachment"));
    REQUIRE_OK(fbs_metadata_set_content_language(md, "en"));
    REQUIRE_OK(fbs_metadata_set_custom(md, "keep", "1"));
    REQUIRE_OK(fbs_metadata_set_custom(md, "drop", "2"));
    fbs_reference *r = new_ref(s, "meta/object.txt");
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_data(r, "hello world", 11, md, &t));
    REQUIRE_OK(fbs_task_wait(t, 30000));
    fbs_task_free(t);
    fbs_metadata_free(md);
    return r;
}

TEST(metadata_get) {
    fbs_storage *s = new_storage();
    fbs_reference *r = upload_with_everything(s);
    fbs_metadata *m = NULL;
    REQUIRE_OK(fbs_reference_get_metadata(r, &m));
    CHECK_STR(fbs_metadata_bucket(m), BUCKET);
    CHECK_STR(fbs_metadata_full_path(m), "meta/object.txt");
    CHECK_STR(fbs_metadata_name(m), "object.txt");
    CHECK_EQ_INT(fbs_metadata_size(m), 11);
    CHECK_STR(fbs_metadata_md5_hash(m), "XrY7u+Ae7tCTyyK7j1rNww==");
    const char *crc = fbs_metadata_crc32c(m);   /* as the server sent it: base64 or decimal */
    CHECK(str_equal(crc, "yZRlqg==") || str_equal(crc, "3381945770"));
    CHECK_STR(fbs_metadata_content_type(m), "text/plain");
    CHECK_STR(fbs_metadata_cache_control(m), "no-cache");
    CHECK_STR(fbs_metadata_content_language(m), "en");
    CHECK_STR(fbs_metadata_custom(m, "keep"), "1");
    CHECK_STR(fbs_metadata_custom(m, "drop"), "2");
    CHECK_EQ_INT(fbs_metadata_custom_count(m), 2);
    CHECK(fbs_metadata_generation(m) > 0);
    CHECK(fbs_metadata_metageneration(m) >= 1);
    int64_t created = fbs_metadata_time_created_ms(m), now_ms = (int64_t)time(NULL) * 1000;
    CHECK(created != FBS_TIME_ABSENT && created > now_ms - 600000 && created < now_ms + 600000);
    CHECK(fbs_metadata_updated_ms(m) >= created);
    fbs_metadata_free(m);
    fbs_reference_free(r);
    fbs_storage_free(s);
}

TEST(metadata_update_semantics) {
    fbs_storage *s = new_storage();
    fbs_reference *r = upload_with_everything(s);
    fbs_metadata *changes = NULL, *m = NULL;
    REQUIRE_OK(fbs_metadata_new(&changes));
    REQUIRE_OK(fbs_metadata_set_content_language(changes, "fr"));     /* set */
    REQUIRE_OK(fbs_metadata_set_cache_control(changes, NULL));        /* delete */
    REQUIRE_OK(fbs_metadata_set_custom(changes, "drop", NULL));       /* delete one key */
    REQUIRE_OK(fbs_metadata_set_custom(changes, "new", "3"));         /* merge a key */
    REQUIRE_OK(fbs_reference_update_metadata(r, changes, &m));
    CHECK_STR(fbs_metadata_content_language(m), "fr");
    CHECK(fbs_metadata_cache_control(m) == NULL);
    CHECK_STR(fbs_metadata_content_type(m), "text/plain");           /* untouched stays */
    CHECK_STR(fbs_metadata_content_disposition(m), "attachment");
    CHECK_STR(fbs_metadata_custom(m, "keep"), "1");
    CHECK(fbs_metadata_custom(m, "drop") == NULL);
    CHECK_STR(fbs_metadata_custom(m, "new"), "3");
    CHECK_EQ_INT(fbs_metadata_custom_count(m), 2);
    int64_t metageneration = fbs_metadata_metageneration(m);
    fbs_metadata_free(m);
    /* what update returned is what the server keeps */
    REQUIRE_OK(fbs_reference_get_metadata(r, &m));
    CHECK_STR(fbs_metadata_content_language(m), "fr");
    CHECK(fbs_metadata_cache_control(m) == NULL);
    CHECK_STR(fbs_metadata_custom(m, "new"), "3");
    CHECK(fbs_metadata_custom(m, "drop") == NULL);
    CHECK(fbs_metadata_metageneration(m) >= metageneration);
    fbs_metadata_free(m);
    fbs_metadata_free(changes);

    /* an empty change set changes nothing */
    REQUIRE_OK(fbs_metadata_new(&changes));
    REQUIRE_OK(fbs_reference_update_metadata(r, changes, &m));
    CHECK_STR(fbs_metadata_content_language(m), "fr");
    CHECK_STR(fbs_metadata_custom(m, "keep"), "1");
    fbs_metadata_free(m);
    /* a key removed locally is not sent: it stays */
    REQUIRE_OK(fbs_metadata_set_custom(changes, "keep", NULL));
    REQUIRE_OK(fbs_metadata_remove_custom(changes, "keep"));
    REQUIRE_OK(fbs_reference_update_metadata(r, changes, &m));
    CHECK_STR(fbs_metadata_custom(m, "keep"), "1");
    fbs_metadata_free(m);
    fbs_metadata_free(changes);
    /* clear deletes every custom key */
    REQUIRE_OK(fbs_metadata_new(&changes));
    REQUIRE_OK(fbs_metadata_clear_custom(changes));
    REQUIRE_OK(fbs_reference_update_metadata(r, changes, &m));
    CHECK_EQ_INT(fbs_metadata_custom_count(m), 0);
    CHECK_STR(fbs_metadata_content_type(m), "text/plain");
    fbs_metadata_free(m);
    fbs_metadata_free(changes);
    /* clear, then set: the keys set afterwards are the only ones left */
    REQUIRE_OK(fbs_metadata_new(&changes));
    REQUIRE_OK(fbs_metadata_set_custom(changes, "old", "1"));
    REQUIRE_OK(fbs_reference_update_metadata(r, changes, &m));
    CHECK_STR(fbs_metadata_custom(m, "old"), "1");
    fbs_metadata_free(m);
    fbs_metadata_free(changes);
    REQUIRE_OK(fbs_metadata_new(&changes));
    REQUIRE_OK(fbs_metadata_clear_custom(changes));
    REQUIRE_OK(fbs_metadata_set_custom(changes, "after", "4"));
    REQUIRE_OK(fbs_reference_update_metadata(r, changes, &m));
    CHECK(fbs_metadata_custom(m, "old") == NULL);
    CHECK_STR(fbs_metadata_custom(m, "after"), "4");
    CHECK_EQ_INT(fbs_metadata_custom_count(m), 1);
    fbs_metadata_free(m);
    fbs_metadata_free(changes);

    fbs_reference *missing = new_ref(s, "meta/missing.txt");
    REQUIRE_OK(fbs_metadata_new(&changes));
    REQUIRE_OK(fbs_metadata_set_content_type(changes, "a/b"));
    m = NULL;
    /* Production answers 403 "Permission denied." to updating a missing object (recorded); the
     * official emulator 404. */
    CHECK_CODE(fbs_reference_update_metadata(missing, changes, &m),
               strcmp(EMU->flavor, "production") == 0 ? FBS_ERR_UNAUTHORIZED : FBS_ERR_OBJECT_NOT_FOUND);
    CHECK(m == NULL);
    fbs_metadata_free(changes);
    fbs_reference_free(missing);
    fbs_reference_free(r);
    fbs_storage_free(s);
}
