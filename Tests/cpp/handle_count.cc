// handle_count.cc — counts the library's handles and strings that the C++ layers hold, so that
// the suite can prove it releases every one (no leak on any path). LeakSanitizer and valgrind
// cannot: the library's handle registry keeps a leaked handle reachable. The test binaries are
// linked with -Wl,--wrap=NAME for each function below (mk/cpp.mk reads the names from this
// file): calls from the tests and from libfbstorage-cpp.a reach these wrappers first.
#include <fbstorage.h>

#include <atomic>

#include "fixtures.h"

namespace {
std::atomic<long> live{0};
}  // namespace

long LiveHandles() { return live.load(); }

// A function that hands the caller a handle or string through `out` on success.
#define COUNT_CREATED(name, params, args)                      \
  extern "C" int __real_##name params;                         \
  extern "C" int __wrap_##name params {                        \
    int rc = __real_##name args;                               \
    if (rc == FBS_OK && out && *out) live++;                   \
    return rc;                                                 \
  }
// A function that releases one.
#define COUNT_RELEASED(name, type)                             \
  extern "C" void __real_##name(type handle);                  \
  extern "C" void __wrap_##name(type handle) {                 \
    if (handle) live--;                                        \
    __real_##name(handle);                                     \
  }

COUNT_CREATED(fbs_storage_new, (const char* b, fbs_storage** out), (b, out))
COUNT_CREATED(fbs_storage_reference, (fbs_storage* s, const char* p, fbs_reference** out), (s, p, out))
COUNT_CREATED(fbs_storage_reference_for_url, (fbs_storage* s, const char* u, fbs_reference** out), (s, u, out))
COUNT_CREATED(fbs_reference_child, (const fbs_reference* r, const char* p, fbs_reference** out), (r, p, out))
COUNT_CREATED(fbs_reference_parent, (const fbs_reference* r, fbs_reference** out), (r, out))
COUNT_CREATED(fbs_reference_root, (const fbs_reference* r, fbs_reference** out), (r, out))
COUNT_CREATED(fbs_metadata_new, (fbs_metadata** out), (out))
COUNT_CREATED(fbs_reference_get_metadata, (const fbs_reference* r, fbs_metadata** out), (r, out))
COUNT_CREATED(fbs_reference_update_metadata, (const fbs_reference* r, const fbs_metadata* c, fbs_metadata** out),
              (r, c, out))
COUNT_CREATED(fbs_reference_download_url, (const fbs_reference* r, char** out), (r, out))
COUNT_CREATED(fbs_reference_get_data, (const fbs_reference* r, int64_t m, void** out, size_t* n), (r, m, out, n))
COUNT_CREATED(fbs_reference_list, (const fbs_reference* r, int64_t m, const char* t, fbs_list_result** out),
              (r, m, t, out))
COUNT_CREATED(fbs_reference_list_all, (const fbs_reference* r, fbs_list_result** out), (r, out))
COUNT_CREATED(fbs_reference_put_data,
              (const fbs_reference* r, const void* b, size_t n, const fbs_metadata* m, fbs_task** out),
              (r, b, n, m, out))
COUNT_CREATED(fbs_reference_put_file, (const fbs_reference* r, const char* p, const fbs_metadata* m, fbs_task** out),
              (r, p, m, out))
COUNT_CREATED(fbs_reference_put_file_resuming,
              (const fbs_reference* r, const char* p, const char* s, const fbs_metadata* m, fbs_task** out),
              (r, p, s, m, out))
COUNT_CREATED(fbs_reference_write_to_file, (const fbs_reference* r, const char* p, fbs_task** out), (r, p, out))
COUNT_CREATED(fbs_task_snapshot, (fbs_task* t, fbs_snapshot** out), (t, out))
COUNT_CREATED(fbs_task_upload_session, (fbs_task* t, char** out), (t, out))
COUNT_CREATED(fbs_auth_new, (const char* k, const char* p, fbs_auth** out), (k, p, out))
COUNT_CREATED(fbs_auth_sign_in_anonymously, (fbs_auth* a, fbs_user** out), (a, out))
COUNT_CREATED(fbs_auth_create_user, (fbs_auth* a, const char* e, const char* p, fbs_user** out), (a, e, p, out))
COUNT_CREATED(fbs_auth_sign_in_with_email, (fbs_auth* a, const char* e, const char* p, fbs_user** out), (a, e, p, out))
COUNT_CREATED(fbs_auth_sign_in_with_custom_token, (fbs_auth* a, const char* t, fbs_user** out), (a, t, out))
COUNT_CREATED(fbs_auth_sign_in_with_refresh_token, (fbs_auth* a, const char* t, fbs_user** out), (a, t, out))
COUNT_CREATED(fbs_auth_current_user, (fbs_auth* a, fbs_user** out), (a, out))
COUNT_CREATED(fbs_auth_get_id_token, (fbs_auth* a, int f, char** out), (a, f, out))
COUNT_CREATED(fbs_credential_email, (const char* e, const char* p, fbs_credential** out), (e, p, out))
COUNT_CREATED(fbs_credential_idp, (const char* p, const char* i, const char* a, fbs_credential** out), (p, i, a, out))
COUNT_CREATED(fbs_credential_oauth, (const char* p, const char* i, const char* n, const char* a, const char* s, fbs_credential** out),
              (p, i, n, a, s, out))
COUNT_CREATED(fbs_auth_sign_in_with_credential, (fbs_auth* a, const fbs_credential* c, fbs_user** out), (a, c, out))
COUNT_CREATED(fbs_auth_link_with_credential, (fbs_auth* a, const fbs_credential* c, fbs_user** out), (a, c, out))
COUNT_CREATED(fbs_auth_reauthenticate, (fbs_auth* a, const fbs_credential* c, fbs_user** out), (a, c, out))
COUNT_CREATED(fbs_auth_unlink, (fbs_auth* a, const char* p, fbs_user** out), (a, p, out))
COUNT_CREATED(fbs_auth_update_email, (fbs_auth* a, const char* e, fbs_user** out), (a, e, out))
COUNT_CREATED(fbs_auth_update_password, (fbs_auth* a, const char* p, fbs_user** out), (a, p, out))
COUNT_CREATED(fbs_auth_update_profile, (fbs_auth* a, const char* n, const char* p, fbs_user** out), (a, n, p, out))
COUNT_CREATED(fbs_auth_reload, (fbs_auth* a, fbs_user** out), (a, out))
COUNT_CREATED(fbs_auth_verify_password_reset_code, (fbs_auth* a, const char* c, char** out), (a, c, out))
COUNT_CREATED(fbs_app_check_new, (const char* p, const char* a, const char* k, fbs_app_check** out), (p, a, k, out))

COUNT_RELEASED(fbs_storage_free, fbs_storage*)
COUNT_RELEASED(fbs_reference_free, fbs_reference*)
COUNT_RELEASED(fbs_metadata_free, fbs_metadata*)
COUNT_RELEASED(fbs_task_free, fbs_task*)
COUNT_RELEASED(fbs_snapshot_free, fbs_snapshot*)
COUNT_RELEASED(fbs_list_result_free, fbs_list_result*)
COUNT_RELEASED(fbs_auth_free, fbs_auth*)
COUNT_RELEASED(fbs_app_check_free, fbs_app_check*)
COUNT_RELEASED(fbs_user_free, fbs_user*)
COUNT_RELEASED(fbs_credential_free, fbs_credential*)
COUNT_RELEASED(fbs_string_free, char*)
COUNT_RELEASED(fbs_data_free, void*)
