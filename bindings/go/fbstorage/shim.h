/* C side of the cgo trampolines: the library gets a uintptr_t key (a registry key or a
 * cgo.Handle) as user_data, never a Go pointer. */
#ifndef FBSGO_SHIM_H
#define FBSGO_SHIM_H

#include <stdint.h>
#include "fbstorage.h"

/* Completion trampolines shared by shim.c and auth_shim.c. */
void fbsgo_completion(int status, void *handle);
void fbsgo_string_done(int status, const char *value, void *handle);

int fbsgo_task_observe(fbs_task *t, int status, uintptr_t key, fbs_observer_handle *out);
int fbsgo_get_metadata_async(const fbs_reference *r, uintptr_t handle);
int fbsgo_update_metadata_async(const fbs_reference *r, const fbs_metadata *changes, uintptr_t handle);
int fbsgo_delete_async(const fbs_reference *r, uintptr_t handle);
int fbsgo_download_url_async(const fbs_reference *r, uintptr_t handle);
int fbsgo_get_data_async(const fbs_reference *r, int64_t max_size, uintptr_t handle);
int fbsgo_list_async(const fbs_reference *r, int64_t max_results, const char *page_token, uintptr_t handle);
int fbsgo_list_all_async(const fbs_reference *r, uintptr_t handle);
int fbsgo_get_range_async(const fbs_reference *r, int64_t offset, int64_t length, int64_t max_size, uintptr_t handle);

/* Streams (stream.go): the sink and the source find their Go side by registry key. */
int fbsgo_stream(const fbs_reference *r, int64_t offset, int64_t length, uintptr_t key, fbs_task **out);
int fbsgo_put_stream(const fbs_reference *r, uintptr_t key, const fbs_metadata *metadata, fbs_task **out);

/* The log handler (log.go): installed, or removed with enabled = 0. */
int fbsgo_set_log_handler(int enabled);

/* auth_shim.c */
int fbsgo_auth_sign_in_anonymously_async(fbs_auth *auth, uintptr_t handle);
int fbsgo_auth_create_user_async(fbs_auth *auth, const char *email, const char *password, uintptr_t handle);
int fbsgo_auth_sign_in_with_email_async(fbs_auth *auth, const char *email, const char *password, uintptr_t handle);
int fbsgo_auth_sign_in_with_custom_token_async(fbs_auth *auth, const char *token, uintptr_t handle);
int fbsgo_auth_sign_in_with_refresh_token_async(fbs_auth *auth, const char *token, uintptr_t handle);
int fbsgo_auth_delete_user_async(fbs_auth *auth, uintptr_t handle);
int fbsgo_auth_get_id_token_async(fbs_auth *auth, int force_refresh, uintptr_t handle);
int fbsgo_auth_add_listener(fbs_auth *auth, int id_token, uintptr_t key, fbs_listener_handle *out);
int fbsgo_auth_sign_in_with_credential_async(fbs_auth *auth, const fbs_credential *credential, uintptr_t handle);
int fbsgo_auth_link_with_credential_async(fbs_auth *auth, const fbs_credential *credential, uintptr_t handle);
int fbsgo_auth_reauthenticate_async(fbs_auth *auth, const fbs_credential *credential, uintptr_t handle);
int fbsgo_auth_unlink_async(fbs_auth *auth, const char *provider_id, uintptr_t handle);
int fbsgo_auth_update_email_async(fbs_auth *auth, const char *email, uintptr_t handle);
int fbsgo_auth_update_password_async(fbs_auth *auth, const char *password, uintptr_t handle);
int fbsgo_auth_reload_async(fbs_auth *auth, uintptr_t handle);
int fbsgo_auth_send_email_verification_async(fbs_auth *auth, uintptr_t handle);
int fbsgo_auth_verify_before_update_email_async(fbs_auth *auth, const char *email, uintptr_t handle);
int fbsgo_auth_send_password_reset_email_async(fbs_auth *auth, const char *email, uintptr_t handle);
int fbsgo_auth_verify_password_reset_code_async(fbs_auth *auth, const char *code, uintptr_t handle);
int fbsgo_auth_fetch_sign_in_methods_async(fbs_auth *auth, const char *email, uintptr_t handle);
int fbsgo_auth_confirm_password_reset_async(fbs_auth *auth, const char *code, const char *new_password, uintptr_t handle);
int fbsgo_auth_apply_action_code_async(fbs_auth *auth, const char *code, uintptr_t handle);
int fbsgo_auth_send_sign_in_link_to_email_async(fbs_auth *auth, const char *email, const fbs_action_code_settings *settings,
                                                uintptr_t handle);
int fbsgo_auth_sign_in_with_email_link_async(fbs_auth *auth, const char *email, const char *link, uintptr_t handle);
int fbsgo_auth_check_action_code_async(fbs_auth *auth, const char *code, uintptr_t handle);

#endif
