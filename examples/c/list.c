/* list.c — list a folder: everything at once (list_all), or page by page.
 *
 *   list [FOLDER] [--page-size N] [--bucket BUCKET] [--emulator HOST:PORT]
 *
 * Without --page-size it calls fbs_reference_list_all(); with it, fbs_reference_list() page
 * by page, passing each page token back. Talks to the emulator named by --emulator or
 * FIREBASE_STORAGE_EMULATOR_HOST.
 * Build: cc -std=c11 list.c $(pkg-config --cflags --libs fbstorage)
 */
#include <fbstorage.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, int code) {
    fprintf(stderr, "%s failed: %s (%s)\n", what, fbs_last_error_message(), fbs_error_name(code));
    return 1;
}

static void print_result(const fbs_list_result *lr) {
    for (size_t i = 0; i < fbs_list_result_prefix_count(lr); i++)
        printf("  %s/\n", fbs_reference_full_path(fbs_list_result_prefix(lr, i)));
    for (size_t i = 0; i < fbs_list_result_item_count(lr); i++)
        printf("  %s\n", fbs_reference_full_path(fbs_list_result_item(lr, i)));
}

static char *copy(const char *s) {
    if (!s) return NULL;
    char *c = malloc(strlen(s) + 1);
    if (c) strcpy(c, s);
    return c;
}

int main(int argc, char **argv) {
    const char *folder = "", *bucket = "demo-project.appspot.com", *emulator = NULL;
    long page_size = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--page-size") && i + 1 < argc) page_size = atol(argv[++i]);
        else if (!strcmp(argv[i], "--bucket") && i + 1 < argc) bucket = argv[++i];
        else if (!strcmp(argv[i], "--emulator") && i + 1 < argc) emulator = argv[++i];
        else if (argv[i][0] != '-') folder = argv[i];
        else {
            fprintf(stderr, "usage: %s [FOLDER] [--page-size N] [--bucket B] [--emulator HOST:PORT]\n", argv[0]);
            return 2;
        }
    }
    fbs_storage *storage = NULL;
    int rc = fbs_storage_new(bucket, &storage);
    if (rc) return fail("fbs_storage_new", rc);
    if (emulator) {
        char host[256];
        const char *colon = strrchr(emulator, ':');
        if (!colon || colon == emulator || (size_t)(colon - emulator) >= sizeof host) {
            fprintf(stderr, "--emulator wants HOST:PORT\n");
            return 2;
        }
        snprintf(host, sizeof host, "%.*s", (int)(colon - emulator), emulator);
        if ((rc = fbs_storage_use_emulator(storage, host, atoi(colon + 1)))) return fail("--emulator", rc);
    }
    fbs_reference *dir = NULL;
    if ((rc = fbs_storage_reference(storage, folder, &dir))) return fail("fbs_storage_reference", rc);
    printf("gs://%s/%s\n", fbs_reference_bucket(dir), fbs_reference_full_path(dir));

    if (page_size <= 0) {
        fbs_list_result *all = NULL;
        if ((rc = fbs_reference_list_all(dir, &all))) return fail("fbs_reference_list_all", rc);
        print_result(all);
        printf("%zu folders, %zu objects\n", fbs_list_result_prefix_count(all), fbs_list_result_item_count(all));
        fbs_list_result_free(all);
    } else {
        char *token = NULL;   /* the token is borrowed from its page: copy it before freeing */
        int page = 0;
        do {
            fbs_list_result *lr = NULL;
            if ((rc = fbs_reference_list(dir, page_size, token, &lr))) return fail("fbs_reference_list", rc);
            printf("page %d\n", ++page);
            print_result(lr);
            free(token);
            token = copy(fbs_list_result_page_token(lr));
            fbs_list_result_free(lr);
        } while (token);
    }
    fbs_reference_free(dir);
    fbs_storage_free(storage);
    return 0;
}
