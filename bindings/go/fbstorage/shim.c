#include "shim.h"
#include "_cgo_export.h"

static void task_event(const fbs_snapshot *s, void *key) { fbsgoTaskEvent((fbs_snapshot *)s, (uintptr_t)key); }
void fbsgo_completion(int status, void *h) { fbsgoCompletion(status, (uintptr_t)h); }
static void metadata_done(int status, const fbs_metadata *m, void *h) { fbsgoMetadataDone(status, (fbs_metadata *)m, (uintptr_t)h); }
void fbsgo_string_done(int status, const char *value, void *h) { fbsgoStringDone(status, (char *)value, (uintptr_t)h); }
static void data_done(int status, const void *bytes, size_t length, void *h) { fbsgoDataDone(status, (void *)bytes, length, (uintptr_t)h); }
static void list_done(int status, const fbs_list_result *lr, void *h) { fbsgoListDone(status, (fbs_list_result *)lr, (uintptr_t)h); }

int fbsgo_task_observe(fbs_task *t, int status, uintptr_t key, fbs_observer_handle *out) {
    return fbs_task_observe(t, (fbs_task_status)status, task_event, (void *)key, out);
}
int fbsgo_get_metadata_async(const fbs_reference *r, uintptr_t h) { return fbs_reference_get_metadata_async(r, metadata_done, (void *)h); }
int fbsgo_update_metadata_async(const fbs_reference *r, const fbs_metadata *changes, uintptr_t h) {
    return fbs_reference_update_metadata_async(r, changes, metadata_done, (void *)h);
}
int fbsgo_delete_async(const fbs_reference *r, uintptr_t h) { return fbs_reference_delete_async(r, fbsgo_completion, (void *)h); }
int fbsgo_download_url_async(const fbs_reference *r, uintptr_t h) { return fbs_reference_download_url_async(r, fbsgo_string_done, (void *)h); }
int fbsgo_get_data_async(const fbs_reference *r, int64_t max_size, uintptr_t h) {
    return fbs_reference_get_data_async(r, max_size, data_done, (void *)h);
}
int fbsgo_list_async(const fbs_reference *r, int64_t max_results, const char *page_token, uintptr_t h) {
    return fbs_reference_list_async(r, max_results, page_token, list_done, (void *)h);
}
int fbsgo_get_range_async(const fbs_reference *r, int64_t offset, int64_t length, int64_t max_size, uintptr_t h) {
    return fbs_reference_get_range_async(r, offset, length, max_size, data_done, (void *)h);
}

static int sink(const void *bytes, size_t length, void *key) { return fbsgoSink((void *)bytes, length, (uintptr_t)key); }
static int64_t source(void *buffer, size_t capacity, void *key) { return fbsgoSource(buffer, capacity, (uintptr_t)key); }
int fbsgo_stream(const fbs_reference *r, int64_t offset, int64_t length, uintptr_t key, fbs_task **out) {
    return fbs_reference_stream(r, offset, length, sink, (void *)key, out);
}
int fbsgo_put_stream(const fbs_reference *r, uintptr_t key, const fbs_metadata *metadata, fbs_task **out) {
    return fbs_reference_put_stream(r, source, (void *)key, metadata, out);
}

static void log_line(int level, const char *line, void *unused) { (void)unused; fbsgoLog(level, (char *)line); }
int fbsgo_set_log_handler(int enabled) { return fbs_library_set_log_handler(enabled ? log_line : NULL, NULL); }
int fbsgo_list_all_async(const fbs_reference *r, uintptr_t h) { return fbs_reference_list_all_async(r, list_done, (void *)h); }

