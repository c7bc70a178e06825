/* test_list.c — paging, list_all, hidden names. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define N_ITEMS 25
#define N_PREFIXES 5

/* 25 objects list/item-NN and 5 folders list/p-N/x. */
static void make_tree(fbs_storage *s) {
    char path[64];
    for (int i = 0; i < N_ITEMS; i++) {
        snprintf(path, sizeof path, "list/item-%02d", i);
        REQUIRE_OK(upload_bytes(s, path, "i", 1));
    }
    for (int i = 0; i < N_PREFIXES; i++) {
        snprintf(path, sizeof path, "list/p-%d/x", i);
        REQUIRE_OK(upload_bytes(s, path, "p", 1));
    }
}

static int index_of(const char *full_path, const char *prefix) {
    size_t n = strlen(prefix);
    if (!full_path || strncmp(full_path, prefix, n) != 0) return -1;
    return atoi(full_path + n);
}

TEST(list_paging) {
    fbs_storage *s = new_storage();
    make_tree(s);
    fbs_reference *dir = new_ref(s, "list");
    int item_seen[N_ITEMS] = {0}, prefix_seen[N_PREFIXES] = {0}, pages = 0, strangers = 0;
    char *token = NULL;
    do {
        fbs_list_result *page = NULL;
        REQUIRE_OK(fbs_reference_list(dir, 4, token, &page));
        free(token);
        token = fbs_list_result_page_token(page) ? strdup(fbs_list_result_page_token(page)) : NULL;
        CHECK(fbs_list_result_item_count(page) <= 4);
        for (size_t i = 0; i < fbs_list_result_item_count(page); i++) {
            const fbs_reference *it = fbs_list_result_item(page, i);
            int k = index_of(fbs_reference_full_path(it), "list/item-");
            if (k >= 0 && k < N_ITEMS) item_seen[k]++; else strangers++;
            CHECK_STR(fbs_reference_bucket(it), BUCKET);
        }
        for (size_t i = 0; i < fbs_list_result_prefix_count(page); i++) {
            int k = index_of(fbs_reference_full_path(fbs_list_result_prefix(page, i)), "list/p-");
            if (k >= 0 && k < N_PREFIXES) prefix_seen[k]++; else strangers++;
        }
        CHECK(fbs_list_result_item(page, fbs_list_result_item_count(page)) == NULL);
        CHECK(fbs_list_result_prefix(page, fbs_list_result_prefix_count(page)) == NULL);
        CHECK(fbs_list_result_item(page, SIZE_MAX) == NULL);
        CHECK(fbs_list_result_prefix(page, SIZE_MAX) == NULL);
        fbs_list_result_free(page);
    } while (token && ++pages < 50);
    CHECK(token == NULL);
    CHECK(pages >= 6);   /* 25 items, 4 per page */
    CHECK_EQ_INT(strangers, 0);
    for (int i = 0; i < N_ITEMS; i++)
        if (item_seen[i] != 1) check_fail(__FILE__, __LINE__, "item-%02d seen %d times", i, item_seen[i]);
    for (int i = 0; i < N_PREFIXES; i++)
        if (prefix_seen[i] < 1) check_fail(__FILE__, __LINE__, "prefix p-%d never seen", i);
    free(token);

    /* max_results 0: the server chooses the page size */
    fbs_list_result *page = NULL;
    CHECK_CODE(fbs_reference_list(dir, 0, NULL, &page), FBS_OK);
    CHECK(fbs_list_result_item_count(page) >= 1);
    fbs_list_result_free(page);
    CHECK_CODE(fbs_reference_list(dir, 1000, NULL, &page), FBS_OK);
    CHECK_EQ_INT(fbs_list_result_item_count(page), N_ITEMS);
    CHECK_EQ_INT(fbs_list_result_prefix_count(page), N_PREFIXES);
    CHECK(fbs_list_result_page_token(page) == NULL);
    fbs_list_result_free(page);
    fbs_reference_free(dir);
    fbs_storage_free(s);
}

TEST(list_all_each_once) {
    fbs_storage *s = new_storage();
    make_tree(s);
    fbs_reference *dir = new_ref(s, "list");
    fbs_list_result *all = NULL;
    REQUIRE_OK(fbs_reference_list_all(dir, &all));
    CHECK_EQ_INT(fbs_list_result_item_count(all), N_ITEMS);
    CHECK_EQ_INT(fbs_list_result_prefix_count(all), N_PREFIXES);
    CHECK(fbs_list_result_page_token(all) == NULL);
    int prefix_seen[N_PREFIXES] = {0};
    for (size_t i = 0; i < fbs_list_result_prefix_count(all); i++) {
        const fbs_reference *p = fbs_list_result_prefix(all, i);
        int k = index_of(fbs_reference_full_path(p), "list/p-");
        if (k >= 0 && k < N_PREFIXES) prefix_seen[k]++;
        char expected[16];
        snprintf(expected, sizeof expected, "p-%d", k);
        CHECK_STR(fbs_reference_name(p), expected);
    }
    for (int i = 0; i < N_PREFIXES; i++) CHECK_EQ_INT(prefix_seen[i], 1);
    fbs_list_result_free(all);

    /* the root lists the folder "list"; an empty folder lists nothing */
    fbs_reference *root = new_ref(s, NULL), *empty = new_ref(s, "nothing/here");
    REQUIRE_OK(fbs_reference_list_all(root, &all));
    CHECK_EQ_INT(fbs_list_result_item_count(all), 0);
    CHECK_EQ_INT(fbs_list_result_prefix_count(all), 1);
    CHECK_STR(fbs_reference_full_path(fbs_list_result_prefix(all, 0)), "list");
    fbs_list_result_free(all);
    REQUIRE_OK(fbs_reference_list_all(empty, &all));
    CHECK_EQ_INT(fbs_list_result_item_count(all) + fbs_list_result_prefix_count(all), 0);
    fbs_list_result_free(all);
    fbs_reference_free(root);
    fbs_reference_free(empty);
    fbs_reference_free(dir);
    fbs_storage_free(s);
}

/* The joined path strings hold exactly the items' and prefixes' full paths, in their order. */
static void check_path_lines(const char *lines, const fbs_list_result *lr,
                             size_t (*count)(const fbs_list_result *),
                             const fbs_reference *(*element)(const fbs_list_result *, size_t)) {
    REQUIRE(lines != NULL);
    const char *line = lines;
    for (size_t i = 0; i < count(lr); i++) {
        const char *path = fbs_reference_full_path(element(lr, i));
        size_t length = strlen(path);
        CHECK(strncmp(line, path, length) == 0 && line[length] == '\n');
        line += length + 1;
    }
    CHECK(*line == '\0');
}

TEST(list_paths_in_one_string) {
    fbs_storage *s = new_storage();
    make_tree(s);
    fbs_reference *dir = new_ref(s, "list"), *empty = new_ref(s, "nothing/here");
    fbs_list_result *all = NULL;
    REQUIRE_OK(fbs_reference_list_all(dir, &all));
    const char *items = fbs_list_result_item_paths(all);
    check_path_lines(items, all, fbs_list_result_item_count, fbs_list_result_item);
    check_path_lines(fbs_list_result_prefix_paths(all), all, fbs_list_result_prefix_count,
                     fbs_list_result_prefix);
    CHECK(fbs_list_result_item_paths(all) == items);   /* borrowed: the same string each time */
    fbs_list_result_free(all);
    REQUIRE_OK(fbs_reference_list_all(empty, &all));
    CHECK_STR(fbs_list_result_item_paths(all), "");
    CHECK_STR(fbs_list_result_prefix_paths(all), "");
    fbs_list_result_free(all);
    fbs_reference_free(empty);
    fbs_reference_free(dir);
    fbs_storage_free(s);
}

TEST(list_hidden_names) {
    fbs_storage *s = new_storage();
    /* names the library cannot create (it normalises "//"), stored directly */
    emu_put_object(EMU, "hid//foo", "a", 1);
    emu_put_object(EMU, "hid/bar//", "b", 1);
    emu_put_object(EMU, "hid/baz//qux", "c", 1);
    emu_put_object(EMU, "hid/a//b", "d", 1);
    REQUIRE_OK(upload_bytes(s, "hid/visible", "v", 1));
    fbs_reference *dir = new_ref(s, "hid");
    fbs_list_result *all = NULL;
    REQUIRE_OK(fbs_reference_list_all(dir, &all));
    CHECK_EQ_INT(fbs_list_result_item_count(all), 1);
    CHECK_STR(fbs_reference_full_path(fbs_list_result_item(all, 0)), "hid/visible");
    int bar = 0, baz = 0, a = 0, other = 0;
    for (size_t i = 0; i < fbs_list_result_prefix_count(all); i++) {
        const char *p = fbs_reference_full_path(fbs_list_result_prefix(all, i));
        if (str_equal(p, "hid/bar")) bar++;
        else if (str_equal(p, "hid/baz")) baz++;
        else if (str_equal(p, "hid/a")) a++;
        else { other++; printf("      unexpected prefix %s\n", p ? p : "(null)"); }
    }
    CHECK_EQ_INT(bar, 1);
    CHECK_EQ_INT(baz, 1);
    CHECK_EQ_INT(a, 1);
    CHECK_EQ_INT(other, 0);
    fbs_list_result_free(all);
    fbs_reference_free(dir);
    fbs_storage_free(s);
}
