/* list_all.c — the fbstorage C client of the list_all workload.
 *
 *   list_all HOST:PORT BUCKET PREFIX [--paths]
 *
 * Prints {"seconds": S, "items": N} for one fbs_reference_list_all of PREFIX, every item's
 * path read: through each item's handle, or with --paths from fbs_list_result_item_paths.
 */
#define _POSIX_C_SOURCE 200809L
#include "fbs_client.h"

int main(int argc, char **argv) {
    int one_string = argc == 5 && strcmp(argv[4], "--paths") == 0;
    if (argc != 4 && !one_string) {
        fprintf(stderr, "usage: %s HOST:PORT BUCKET PREFIX [--paths]\n", argv[0]);
        return 2;
    }
    fbs_storage *storage;
    fbs_reference *ref;
    fbs_list_result *result;
    int rc;
    if (emulator_reference(argv[1], argv[2], argv[3], &storage, &ref)) return 1;

    double started = now_s();
    if ((rc = fbs_reference_list_all(ref, &result))) return fail("list_all", rc);
    /* Every item's path read, as the raw loop collects every name. */
    size_t items = 0;
    if (one_string) {
        for (const char *c = fbs_list_result_item_paths(result); *c; c++) items += *c == '\n';
    } else {
        size_t count = fbs_list_result_item_count(result);
        for (size_t i = 0; i < count; i++)
            items += fbs_reference_full_path(fbs_list_result_item(result, i)) != NULL;
    }
    printf("{\"seconds\": %.6f, \"items\": %zu}\n", now_s() - started, items);

    fbs_list_result_free(result);
    fbs_reference_free(ref);
    fbs_storage_free(storage);
    return 0;
}
