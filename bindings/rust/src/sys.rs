//! Raw `extern "C"` declarations of `include/fbstorage.h`, one block per header of
//! `include/fbstorage/`. `tests/sys_matches_header.rs` checks names and arities against the headers.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

macro_rules! opaque {
    ($($name:ident),*) => {$(
        #[repr(C)]
        #[derive(Debug)]
        pub struct $name { _private: [u8; 0] }
    )*};
}
opaque!(fbs_storage, fbs_reference, fbs_metadata, fbs_task, fbs_snapshot, fbs_list_result);
opaque!(fbs_auth, fbs_user, fbs_credential, fbs_action_code_settings, fbs_token_request, fbs_service_account);
opaque!(fbs_app_check, fbs_app_check_request);

pub type fbs_observer_handle = i64;
pub type fbs_listener_handle = i64;
pub type fbs_task_status = c_int;

pub type fbs_log_handler = Option<unsafe extern "C" fn(level: c_int, line: *const c_char, user_data: *mut c_void)>;
pub type fbs_completion_callback = Option<unsafe extern "C" fn(status: c_int, user_data: *mut c_void)>;
pub type fbs_metadata_callback =
    Option<unsafe extern "C" fn(status: c_int, metadata: *const fbs_metadata, user_data: *mut c_void)>;
pub type fbs_list_callback =
    Option<unsafe extern "C" fn(status: c_int, result: *const fbs_list_result, user_data: *mut c_void)>;
pub type fbs_string_callback = Option<unsafe extern "C" fn(status: c_int, value: *const c_char, user_data: *mut c_void)>;
pub type fbs_data_callback =
    Option<unsafe extern "C" fn(status: c_int, bytes: *const c_void, length: usize, user_data: *mut c_void)>;
pub type fbs_task_callback = Option<unsafe extern "C" fn(snapshot: *const fbs_snapshot, user_data: *mut c_void)>;
pub type fbs_token_provider = Option<unsafe extern "C" fn(force_refresh: c_int, user_data: *mut c_void) -> *const c_char>;
pub type fbs_user_callback = Option<unsafe extern "C" fn(status: c_int, user: *const fbs_user, user_data: *mut c_void)>;
pub type fbs_auth_listener = Option<unsafe extern "C" fn(user: *const fbs_user, user_data: *mut c_void)>;
pub type fbs_token_provider_async =
    Option<unsafe extern "C" fn(force_refresh: c_int, request: *mut fbs_token_request, user_data: *mut c_void)>;

pub type fbs_destroy_notify = Option<unsafe extern "C" fn(user_data: *mut c_void)>;
pub type fbs_sink_callback = Option<unsafe extern "C" fn(bytes: *const c_void, length: usize, user_data: *mut c_void) -> c_int>;
pub type fbs_source_callback = Option<unsafe extern "C" fn(buffer: *mut c_void, capacity: usize, user_data: *mut c_void) -> i64>;

/// `fbs_allocator` (operations.h): memory a download fills, from the caller.
#[repr(C)]
#[derive(Debug)]
pub struct fbs_allocator {
    pub allocate: Option<unsafe extern "C" fn(length: usize, user_data: *mut c_void) -> *mut c_void>,
    pub release: Option<unsafe extern "C" fn(memory: *mut c_void, user_data: *mut c_void)>,
    pub user_data: *mut c_void,
}

pub const FBS_TIME_ABSENT: i64 = i64::MIN;

// common.h
unsafe extern "C" {
    pub fn fbs_version() -> *const c_char;
    pub fn fbs_abi_version() -> c_int;
    pub fn fbs_last_error_message() -> *const c_char;
    pub fn fbs_last_error_http_status() -> c_int;
    pub fn fbs_last_error_server_response() -> *const c_char;
    pub fn fbs_error_name(code: c_int) -> *const c_char;
    pub fn fbs_constant(index: usize, out_value: *mut i64) -> *const c_char;
    pub fn fbs_string_free(s: *mut c_char);
    pub fn fbs_data_free(bytes: *mut c_void);
    pub fn fbs_library_set_log_handler(handler: fbs_log_handler, user_data: *mut c_void) -> c_int;
}

// storage.h
unsafe extern "C" {
    pub fn fbs_storage_new(bucket: *const c_char, out: *mut *mut fbs_storage) -> c_int;
    pub fn fbs_storage_free(storage: *mut fbs_storage);
    pub fn fbs_storage_bucket(storage: *const fbs_storage) -> *const c_char;
    pub fn fbs_storage_use_emulator(storage: *mut fbs_storage, host: *const c_char, port: c_int) -> c_int;
    pub fn fbs_storage_set_auth_token(storage: *mut fbs_storage, token: *const c_char) -> c_int;
    pub fn fbs_storage_set_auth_token_provider(storage: *mut fbs_storage, f: fbs_token_provider, user_data: *mut c_void) -> c_int;
    pub fn fbs_storage_set_app_check_token(storage: *mut fbs_storage, token: *const c_char) -> c_int;
    pub fn fbs_storage_set_max_upload_retry_time(storage: *mut fbs_storage, seconds: f64) -> c_int;
    pub fn fbs_storage_get_max_upload_retry_time(storage: *const fbs_storage, out_seconds: *mut f64) -> c_int;
    pub fn fbs_storage_set_max_download_retry_time(storage: *mut fbs_storage, seconds: f64) -> c_int;
    pub fn fbs_storage_get_max_download_retry_time(storage: *const fbs_storage, out_seconds: *mut f64) -> c_int;
    pub fn fbs_storage_set_max_operation_retry_time(storage: *mut fbs_storage, seconds: f64) -> c_int;
    pub fn fbs_storage_get_max_operation_retry_time(storage: *const fbs_storage, out_seconds: *mut f64) -> c_int;
    pub fn fbs_storage_set_upload_chunk_size(storage: *mut fbs_storage, bytes: i64) -> c_int;
    pub fn fbs_storage_get_upload_chunk_size(storage: *const fbs_storage, out_bytes: *mut i64) -> c_int;
    pub fn fbs_storage_set_connect_timeout(storage: *mut fbs_storage, seconds: f64) -> c_int;
    pub fn fbs_storage_get_connect_timeout(storage: *const fbs_storage, out_seconds: *mut f64) -> c_int;
    pub fn fbs_storage_set_loopback_refused_grace(storage: *mut fbs_storage, seconds: f64) -> c_int;
    pub fn fbs_storage_get_loopback_refused_grace(storage: *const fbs_storage, out_seconds: *mut f64) -> c_int;
    pub fn fbs_storage_set_verify_md5(storage: *mut fbs_storage, enabled: c_int) -> c_int;
    pub fn fbs_storage_set_ca_file(storage: *mut fbs_storage, pem_path: *const c_char) -> c_int;
}

// reference.h
unsafe extern "C" {
    pub fn fbs_storage_reference(storage: *mut fbs_storage, path: *const c_char, out: *mut *mut fbs_reference) -> c_int;
    pub fn fbs_storage_reference_for_url(storage: *mut fbs_storage, url: *const c_char, out: *mut *mut fbs_reference) -> c_int;
    pub fn fbs_reference_child(r: *const fbs_reference, path: *const c_char, out: *mut *mut fbs_reference) -> c_int;
    pub fn fbs_reference_parent(r: *const fbs_reference, out: *mut *mut fbs_reference) -> c_int;
    pub fn fbs_reference_root(r: *const fbs_reference, out: *mut *mut fbs_reference) -> c_int;
    pub fn fbs_reference_name(r: *const fbs_reference) -> *const c_char;
    pub fn fbs_reference_full_path(r: *const fbs_reference) -> *const c_char;
    pub fn fbs_reference_bucket(r: *const fbs_reference) -> *const c_char;
    pub fn fbs_reference_free(r: *mut fbs_reference);
}

// metadata.h
unsafe extern "C" {
    pub fn fbs_metadata_new(out: *mut *mut fbs_metadata) -> c_int;
    pub fn fbs_metadata_free(m: *mut fbs_metadata);
    pub fn fbs_metadata_set_cache_control(m: *mut fbs_metadata, value: *const c_char) -> c_int;
    pub fn fbs_metadata_set_content_disposition(m: *mut fbs_metadata, value: *const c_char) -> c_int;
    pub fn fbs_metadata_set_content_encoding(m: *mut fbs_metadata, value: *const c_char) -> c_int;
    pub fn fbs_metadata_set_content_language(m: *mut fbs_metadata, value: *const c_char) -> c_int;
    pub fn fbs_metadata_set_content_type(m: *mut fbs_metadata, value: *const c_char) -> c_int;
    pub fn fbs_metadata_cache_control(m: *const fbs_metadata) -> *const c_char;
    pub fn fbs_metadata_content_disposition(m: *const fbs_metadata) -> *const c_char;
    pub fn fbs_metadata_content_encoding(m: *const fbs_metadata) -> *const c_char;
    pub fn fbs_metadata_content_language(m: *const fbs_metadata) -> *const c_char;
    pub fn fbs_metadata_content_type(m: *const fbs_metadata) -> *const c_char;
    pub fn fbs_metadata_bucket(m: *const fbs_metadata) -> *const c_char;
    pub fn fbs_metadata_full_path(m: *const fbs_metadata) -> *const c_char;
    pub fn fbs_metadata_name(m: *const fbs_metadata) -> *const c_char;
    pub fn fbs_metadata_md5_hash(m: *const fbs_metadata) -> *const c_char;
    pub fn fbs_metadata_crc32c(m: *const fbs_metadata) -> *const c_char;
    pub fn fbs_metadata_size(m: *const fbs_metadata) -> i64;
    pub fn fbs_metadata_generation(m: *const fbs_metadata) -> i64;
    pub fn fbs_metadata_metageneration(m: *const fbs_metadata) -> i64;
    pub fn fbs_metadata_time_created_ms(m: *const fbs_metadata) -> i64;
    pub fn fbs_metadata_updated_ms(m: *const fbs_metadata) -> i64;
    pub fn fbs_metadata_set_custom(m: *mut fbs_metadata, key: *const c_char, value: *const c_char) -> c_int;
    pub fn fbs_metadata_remove_custom(m: *mut fbs_metadata, key: *const c_char) -> c_int;
    pub fn fbs_metadata_clear_custom(m: *mut fbs_metadata) -> c_int;
    pub fn fbs_metadata_custom(m: *const fbs_metadata, key: *const c_char) -> *const c_char;
    pub fn fbs_metadata_custom_count(m: *const fbs_metadata) -> usize;
    pub fn fbs_metadata_custom_key_at(m: *const fbs_metadata, index: usize) -> *const c_char;
}

// task.h
unsafe extern "C" {
    pub fn fbs_reference_put_data(r: *const fbs_reference, bytes: *const c_void, length: usize,
                                  metadata: *const fbs_metadata, out: *mut *mut fbs_task) -> c_int;
    pub fn fbs_reference_put_file(r: *const fbs_reference, local_path: *const c_char,
                                  metadata: *const fbs_metadata, out: *mut *mut fbs_task) -> c_int;
    pub fn fbs_task_upload_session(t: *mut fbs_task, out: *mut *mut c_char) -> c_int;
    pub fn fbs_reference_put_file_resuming(r: *const fbs_reference, local_path: *const c_char, session: *const c_char,
                                           metadata: *const fbs_metadata, out: *mut *mut fbs_task) -> c_int;
    pub fn fbs_reference_write_to_file(r: *const fbs_reference, local_path: *const c_char, out: *mut *mut fbs_task) -> c_int;
    pub fn fbs_task_observe(t: *mut fbs_task, status: fbs_task_status, cb: fbs_task_callback, user_data: *mut c_void,
                            out: *mut fbs_observer_handle) -> c_int;
    pub fn fbs_task_remove_observer(t: *mut fbs_task, h: fbs_observer_handle) -> c_int;
    pub fn fbs_task_remove_all_observers_for_status(t: *mut fbs_task, status: fbs_task_status) -> c_int;
    pub fn fbs_task_remove_all_observers(t: *mut fbs_task) -> c_int;
    pub fn fbs_task_pause(t: *mut fbs_task) -> c_int;
    pub fn fbs_task_resume(t: *mut fbs_task) -> c_int;
    pub fn fbs_task_cancel(t: *mut fbs_task) -> c_int;
    pub fn fbs_task_wait(t: *mut fbs_task, timeout_ms: i64) -> c_int;
    pub fn fbs_task_snapshot(t: *mut fbs_task, out: *mut *mut fbs_snapshot) -> c_int;
    pub fn fbs_task_free(t: *mut fbs_task);
}

// snapshot.h
unsafe extern "C" {
    pub fn fbs_snapshot_status(s: *const fbs_snapshot) -> fbs_task_status;
    pub fn fbs_snapshot_bytes_transferred(s: *const fbs_snapshot) -> i64;
    pub fn fbs_snapshot_total_bytes(s: *const fbs_snapshot) -> i64;
    pub fn fbs_snapshot_error_code(s: *const fbs_snapshot) -> c_int;
    pub fn fbs_snapshot_error_message(s: *const fbs_snapshot) -> *const c_char;
    pub fn fbs_snapshot_error_http_status(s: *const fbs_snapshot) -> c_int;
    pub fn fbs_snapshot_error_server_response(s: *const fbs_snapshot) -> *const c_char;
    pub fn fbs_snapshot_metadata(s: *const fbs_snapshot) -> *const fbs_metadata;
    pub fn fbs_snapshot_reference(s: *const fbs_snapshot) -> *const fbs_reference;
    pub fn fbs_snapshot_free(s: *mut fbs_snapshot);
}

// operations.h
unsafe extern "C" {
    pub fn fbs_reference_get_metadata(r: *const fbs_reference, out: *mut *mut fbs_metadata) -> c_int;
    pub fn fbs_reference_get_metadata_async(r: *const fbs_reference, cb: fbs_metadata_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_reference_update_metadata(r: *const fbs_reference, changes: *const fbs_metadata, out: *mut *mut fbs_metadata) -> c_int;
    pub fn fbs_reference_update_metadata_async(r: *const fbs_reference, changes: *const fbs_metadata, cb: fbs_metadata_callback,
                                               user_data: *mut c_void) -> c_int;
    pub fn fbs_reference_delete(r: *const fbs_reference) -> c_int;
    pub fn fbs_reference_delete_async(r: *const fbs_reference, cb: fbs_completion_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_reference_download_url(r: *const fbs_reference, out_url: *mut *mut c_char) -> c_int;
    pub fn fbs_reference_download_url_async(r: *const fbs_reference, cb: fbs_string_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_reference_get_data(r: *const fbs_reference, max_size: i64, out_bytes: *mut *mut c_void, out_length: *mut usize) -> c_int;
    pub fn fbs_reference_get_data_async(r: *const fbs_reference, max_size: i64, cb: fbs_data_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_reference_get_data_into(r: *const fbs_reference, max_size: i64, allocator: *const fbs_allocator,
                                       out_bytes: *mut *mut c_void, out_length: *mut usize) -> c_int;
    pub fn fbs_reference_get_data_into_async(r: *const fbs_reference, max_size: i64, allocator: *const fbs_allocator,
                                             cb: fbs_data_callback, user_data: *mut c_void) -> c_int;
}

// list.h
unsafe extern "C" {
    pub fn fbs_reference_list(r: *const fbs_reference, max_results: i64, page_token: *const c_char,
                              out: *mut *mut fbs_list_result) -> c_int;
    pub fn fbs_reference_list_async(r: *const fbs_reference, max_results: i64, page_token: *const c_char,
                                    cb: fbs_list_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_reference_list_all(r: *const fbs_reference, out: *mut *mut fbs_list_result) -> c_int;
    pub fn fbs_reference_list_all_async(r: *const fbs_reference, cb: fbs_list_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_list_result_item_count(lr: *const fbs_list_result) -> usize;
    pub fn fbs_list_result_item(lr: *const fbs_list_result, index: usize) -> *const fbs_reference;
    pub fn fbs_list_result_prefix_count(lr: *const fbs_list_result) -> usize;
    pub fn fbs_list_result_prefix(lr: *const fbs_list_result, index: usize) -> *const fbs_reference;
    pub fn fbs_list_result_item_paths(lr: *const fbs_list_result) -> *const c_char;
    pub fn fbs_list_result_prefix_paths(lr: *const fbs_list_result) -> *const c_char;
    pub fn fbs_list_result_page_token(lr: *const fbs_list_result) -> *const c_char;
    pub fn fbs_list_result_free(lr: *mut fbs_list_result);
}

// auth.h
unsafe extern "C" {
    pub fn fbs_auth_new(api_key: *const c_char, project_id: *const c_char, out: *mut *mut fbs_auth) -> c_int;
    pub fn fbs_auth_free(auth: *mut fbs_auth);
    pub fn fbs_auth_use_emulator(auth: *mut fbs_auth, host: *const c_char, port: c_int) -> c_int;
    pub fn fbs_auth_set_persistence_file(auth: *mut fbs_auth, path: *const c_char) -> c_int;
    pub fn fbs_auth_set_persistence_for_app(auth: *mut fbs_auth, program: *const c_char, app_name: *const c_char) -> c_int;
    pub fn fbs_auth_sign_in_anonymously(auth: *mut fbs_auth, out_user: *mut *mut fbs_user) -> c_int;
    pub fn fbs_auth_sign_in_anonymously_async(auth: *mut fbs_auth, cb: fbs_user_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_create_user(auth: *mut fbs_auth, email: *const c_char, password: *const c_char, out_user: *mut *mut fbs_user) -> c_int;
    pub fn fbs_auth_create_user_async(auth: *mut fbs_auth, email: *const c_char, password: *const c_char, cb: fbs_user_callback,
                                      user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_sign_in_with_email(auth: *mut fbs_auth, email: *const c_char, password: *const c_char,
                                       out_user: *mut *mut fbs_user) -> c_int;
    pub fn fbs_auth_sign_in_with_email_async(auth: *mut fbs_auth, email: *const c_char, password: *const c_char,
                                             cb: fbs_user_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_sign_in_with_custom_token(auth: *mut fbs_auth, token: *const c_char, out_user: *mut *mut fbs_user) -> c_int;
    pub fn fbs_auth_sign_in_with_custom_token_async(auth: *mut fbs_auth, token: *const c_char, cb: fbs_user_callback,
                                                    user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_sign_in_with_refresh_token(auth: *mut fbs_auth, refresh_token: *const c_char, out_user: *mut *mut fbs_user) -> c_int;
    pub fn fbs_auth_sign_in_with_refresh_token_async(auth: *mut fbs_auth, refresh_token: *const c_char, cb: fbs_user_callback,
                                                     user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_sign_out(auth: *mut fbs_auth) -> c_int;
    pub fn fbs_auth_delete_user(auth: *mut fbs_auth) -> c_int;
    pub fn fbs_auth_delete_user_async(auth: *mut fbs_auth, cb: fbs_completion_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_current_user(auth: *mut fbs_auth, out: *mut *mut fbs_user) -> c_int;
    pub fn fbs_auth_get_id_token(auth: *mut fbs_auth, force_refresh: c_int, out_token: *mut *mut c_char) -> c_int;
    pub fn fbs_auth_get_id_token_async(auth: *mut fbs_auth, force_refresh: c_int, cb: fbs_string_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_add_state_listener(auth: *mut fbs_auth, cb: fbs_auth_listener, user_data: *mut c_void,
                                       out_handle: *mut fbs_listener_handle) -> c_int;
    pub fn fbs_auth_add_id_token_listener(auth: *mut fbs_auth, cb: fbs_auth_listener, user_data: *mut c_void,
                                          out_handle: *mut fbs_listener_handle) -> c_int;
    pub fn fbs_auth_remove_listener(auth: *mut fbs_auth, handle: fbs_listener_handle) -> c_int;
    pub fn fbs_user_uid(user: *const fbs_user) -> *const c_char;
    pub fn fbs_user_email(user: *const fbs_user) -> *const c_char;
    pub fn fbs_user_display_name(user: *const fbs_user) -> *const c_char;
    pub fn fbs_user_photo_url(user: *const fbs_user) -> *const c_char;
    pub fn fbs_user_is_anonymous(user: *const fbs_user) -> c_int;
    pub fn fbs_user_sign_in_provider(user: *const fbs_user) -> *const c_char;
    pub fn fbs_user_is_new_user(user: *const fbs_user) -> c_int;
    pub fn fbs_user_additional_provider_id(user: *const fbs_user) -> *const c_char;
    pub fn fbs_user_additional_profile_json(user: *const fbs_user) -> *const c_char;
    pub fn fbs_user_additional_username(user: *const fbs_user) -> *const c_char;
    pub fn fbs_user_id_token(user: *const fbs_user) -> *const c_char;
    pub fn fbs_user_refresh_token(user: *const fbs_user) -> *const c_char;
    pub fn fbs_user_claims_json(user: *const fbs_user) -> *const c_char;
    pub fn fbs_user_token_expiration(user: *const fbs_user) -> i64;
    pub fn fbs_user_token_issued_at(user: *const fbs_user) -> i64;
    pub fn fbs_user_auth_time(user: *const fbs_user) -> i64;
    pub fn fbs_user_free(user: *mut fbs_user);
    pub fn fbs_storage_use_auth(storage: *mut fbs_storage, auth: *mut fbs_auth) -> c_int;
    pub fn fbs_auth_update_profile(auth: *mut fbs_auth, display_name: *const c_char, photo_url: *const c_char,
                                   out_user: *mut *mut fbs_user) -> c_int;
    pub fn fbs_auth_update_profile_async(auth: *mut fbs_auth, display_name: *const c_char, photo_url: *const c_char,
                                         cb: fbs_user_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_storage_set_auth_token_provider_async(storage: *mut fbs_storage, f: fbs_token_provider_async,
                                                     user_data: *mut c_void) -> c_int;
    pub fn fbs_storage_set_auth_token_provider_async_full(storage: *mut fbs_storage, f: fbs_token_provider_async,
                                                          user_data: *mut c_void, destroy: fbs_destroy_notify) -> c_int;
    pub fn fbs_token_request_complete(request: *mut fbs_token_request, token: *const c_char) -> c_int;
    pub fn fbs_token_request_fail(request: *mut fbs_token_request, message: *const c_char) -> c_int;
    pub fn fbs_credential_email(email: *const c_char, password: *const c_char, out: *mut *mut fbs_credential) -> c_int;
    pub fn fbs_credential_idp(provider_id: *const c_char, id_token: *const c_char, access_token: *const c_char, out: *mut *mut fbs_credential) -> c_int;
    pub fn fbs_credential_oauth(provider_id: *const c_char, id_token: *const c_char, raw_nonce: *const c_char, access_token: *const c_char, secret: *const c_char, out: *mut *mut fbs_credential) -> c_int;
    pub fn fbs_credential_free(credential: *mut fbs_credential);
    pub fn fbs_auth_fetch_sign_in_methods(auth: *mut fbs_auth, email: *const c_char, out_methods: *mut *mut c_char) -> c_int;
    pub fn fbs_auth_fetch_sign_in_methods_async(auth: *mut fbs_auth, email: *const c_char, cb: fbs_string_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_sign_in_with_credential(auth: *mut fbs_auth, credential: *const fbs_credential, out_user: *mut *mut fbs_user) -> c_int;
    pub fn fbs_auth_sign_in_with_credential_async(auth: *mut fbs_auth, credential: *const fbs_credential, cb: fbs_user_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_link_with_credential(auth: *mut fbs_auth, credential: *const fbs_credential, out_user: *mut *mut fbs_user) -> c_int;
    pub fn fbs_auth_link_with_credential_async(auth: *mut fbs_auth, credential: *const fbs_credential, cb: fbs_user_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_reauthenticate(auth: *mut fbs_auth, credential: *const fbs_credential, out_user: *mut *mut fbs_user) -> c_int;
    pub fn fbs_auth_reauthenticate_async(auth: *mut fbs_auth, credential: *const fbs_credential, cb: fbs_user_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_unlink(auth: *mut fbs_auth, provider_id: *const c_char, out_user: *mut *mut fbs_user) -> c_int;
    pub fn fbs_auth_unlink_async(auth: *mut fbs_auth, provider_id: *const c_char, cb: fbs_user_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_update_email(auth: *mut fbs_auth, email: *const c_char, out_user: *mut *mut fbs_user) -> c_int;
    pub fn fbs_auth_update_email_async(auth: *mut fbs_auth, email: *const c_char, cb: fbs_user_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_update_password(auth: *mut fbs_auth, password: *const c_char, out_user: *mut *mut fbs_user) -> c_int;
    pub fn fbs_auth_update_password_async(auth: *mut fbs_auth, password: *const c_char, cb: fbs_user_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_reload(auth: *mut fbs_auth, out_user: *mut *mut fbs_user) -> c_int;
    pub fn fbs_auth_reload_async(auth: *mut fbs_auth, cb: fbs_user_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_send_email_verification(auth: *mut fbs_auth) -> c_int;
    pub fn fbs_auth_send_email_verification_async(auth: *mut fbs_auth, cb: fbs_completion_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_verify_before_update_email(auth: *mut fbs_auth, email: *const c_char) -> c_int;
    pub fn fbs_auth_verify_before_update_email_async(auth: *mut fbs_auth, email: *const c_char, cb: fbs_completion_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_send_password_reset_email(auth: *mut fbs_auth, email: *const c_char) -> c_int;
    pub fn fbs_auth_send_password_reset_email_async(auth: *mut fbs_auth, email: *const c_char, cb: fbs_completion_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_verify_password_reset_code(auth: *mut fbs_auth, code: *const c_char, out_email: *mut *mut c_char) -> c_int;
    pub fn fbs_auth_verify_password_reset_code_async(auth: *mut fbs_auth, code: *const c_char, cb: fbs_string_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_confirm_password_reset(auth: *mut fbs_auth, code: *const c_char, new_password: *const c_char) -> c_int;
    pub fn fbs_auth_confirm_password_reset_async(auth: *mut fbs_auth, code: *const c_char, new_password: *const c_char, cb: fbs_completion_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_apply_action_code(auth: *mut fbs_auth, code: *const c_char) -> c_int;
    pub fn fbs_auth_apply_action_code_async(auth: *mut fbs_auth, code: *const c_char, cb: fbs_completion_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_user_is_email_verified(user: *const fbs_user) -> c_int;
    pub fn fbs_action_code_settings_new(url: *const c_char, handle_code_in_app: c_int, out: *mut *mut fbs_action_code_settings) -> c_int;
    pub fn fbs_action_code_settings_set_ios_bundle_id(settings: *mut fbs_action_code_settings, bundle_id: *const c_char) -> c_int;
    pub fn fbs_action_code_settings_set_android_package_name(settings: *mut fbs_action_code_settings, package_name: *const c_char,
                                                             install_app: c_int, minimum_version: *const c_char) -> c_int;
    pub fn fbs_action_code_settings_set_link_domain(settings: *mut fbs_action_code_settings, domain: *const c_char) -> c_int;
    pub fn fbs_action_code_settings_free(settings: *mut fbs_action_code_settings);
    pub fn fbs_auth_send_sign_in_link_to_email(auth: *mut fbs_auth, email: *const c_char, settings: *const fbs_action_code_settings) -> c_int;
    pub fn fbs_auth_send_sign_in_link_to_email_async(auth: *mut fbs_auth, email: *const c_char, settings: *const fbs_action_code_settings,
                                                     cb: fbs_completion_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_auth_is_sign_in_with_email_link(auth: *mut fbs_auth, link: *const c_char) -> c_int;
    pub fn fbs_auth_sign_in_with_email_link(auth: *mut fbs_auth, email: *const c_char, link: *const c_char, out_user: *mut *mut fbs_user) -> c_int;
    pub fn fbs_auth_sign_in_with_email_link_async(auth: *mut fbs_auth, email: *const c_char, link: *const c_char,
                                                  cb: fbs_user_callback, user_data: *mut c_void) -> c_int;
}

// A user's sign-in methods and dates, and checking action codes (auth.h)
pub type fbs_action_code_callback = Option<unsafe extern "C" fn(status: c_int, operation: *const c_char, email: *const c_char,
                                                                new_email: *const c_char, user_data: *mut c_void)>;
unsafe extern "C" {
    pub fn fbs_user_provider_count(user: *const fbs_user) -> usize;
    pub fn fbs_user_provider_id(user: *const fbs_user, index: usize) -> *const c_char;
    pub fn fbs_user_provider_uid(user: *const fbs_user, index: usize) -> *const c_char;
    pub fn fbs_user_provider_email(user: *const fbs_user, index: usize) -> *const c_char;
    pub fn fbs_user_provider_display_name(user: *const fbs_user, index: usize) -> *const c_char;
    pub fn fbs_user_provider_photo_url(user: *const fbs_user, index: usize) -> *const c_char;
    pub fn fbs_user_provider_phone_number(user: *const fbs_user, index: usize) -> *const c_char;
    pub fn fbs_user_creation_time(user: *const fbs_user) -> i64;
    pub fn fbs_user_last_sign_in_time(user: *const fbs_user) -> i64;
    pub fn fbs_auth_check_action_code(auth: *mut fbs_auth, code: *const c_char, out_operation: *mut *mut c_char,
                                      out_email: *mut *mut c_char, out_new_email: *mut *mut c_char) -> c_int;
    pub fn fbs_auth_check_action_code_async(auth: *mut fbs_auth, code: *const c_char, cb: fbs_action_code_callback,
                                            user_data: *mut c_void) -> c_int;
}

// Added with admin.h, close modes, proxies, speed caps and destroy callbacks (storage.h, task.h, metadata.h, list.h, operations.h)
unsafe extern "C" {
    pub fn fbs_library_system_ca_bundle(out: *mut *mut c_char) -> c_int;
    pub fn fbs_storage_close(storage: *mut fbs_storage, mode: c_int, timeout_seconds: f64) -> c_int;
    pub fn fbs_storage_use_endpoint(storage: *mut fbs_storage, url: *const c_char) -> c_int;
    pub fn fbs_storage_set_auth_token_provider_full(storage: *mut fbs_storage, fn_: fbs_token_provider, user_data: *mut c_void, destroy: fbs_destroy_notify) -> c_int;
    pub fn fbs_storage_set_proxy(storage: *mut fbs_storage, url: *const c_char, username: *const c_char, password: *const c_char, no_proxy: *const c_char) -> c_int;
    pub fn fbs_storage_set_max_upload_speed(storage: *mut fbs_storage, bytes_per_second: i64) -> c_int;
    pub fn fbs_storage_get_max_upload_speed(storage: *const fbs_storage, out_bytes_per_second: *mut i64) -> c_int;
    pub fn fbs_storage_set_max_download_speed(storage: *mut fbs_storage, bytes_per_second: i64) -> c_int;
    pub fn fbs_storage_get_max_download_speed(storage: *const fbs_storage, out_bytes_per_second: *mut i64) -> c_int;
    pub fn fbs_metadata_copy(m: *const fbs_metadata, out: *mut *mut fbs_metadata) -> c_int;
    pub fn fbs_task_set_max_speed(t: *mut fbs_task, bytes_per_second: i64) -> c_int;
    pub fn fbs_task_get_max_speed(t: *mut fbs_task, out_bytes_per_second: *mut i64) -> c_int;
    pub fn fbs_task_observe_full(t: *mut fbs_task, status: fbs_task_status, cb: fbs_task_callback, user_data: *mut c_void, destroy: fbs_destroy_notify, out: *mut fbs_observer_handle) -> c_int;
    pub fn fbs_service_account_from_file(path: *const c_char, out: *mut *mut fbs_service_account) -> c_int;
    pub fn fbs_service_account_from_json(json: *const c_char, out: *mut *mut fbs_service_account) -> c_int;
    pub fn fbs_service_account_from_environment(out: *mut *mut fbs_service_account) -> c_int;
    pub fn fbs_service_account_free(account: *mut fbs_service_account);
    pub fn fbs_service_account_email(account: *const fbs_service_account) -> *const c_char;
    pub fn fbs_service_account_project_id(account: *const fbs_service_account) -> *const c_char;
    pub fn fbs_service_account_set_scopes(account: *mut fbs_service_account, scopes: *const c_char) -> c_int;
    pub fn fbs_service_account_access_token(account: *mut fbs_service_account, force_refresh: c_int, out_token: *mut *mut c_char) -> c_int;
    pub fn fbs_storage_use_service_account(storage: *mut fbs_storage, account: *mut fbs_service_account) -> c_int;
    pub fn fbs_storage_set_access_token(storage: *mut fbs_storage, token: *const c_char) -> c_int;
    pub fn fbs_storage_set_access_token_provider(storage: *mut fbs_storage, fn_: fbs_token_provider, user_data: *mut c_void) -> c_int;
    pub fn fbs_service_account_sign_url(account: *const fbs_service_account, method: *const c_char, bucket: *const c_char, object: *const c_char, expires_seconds: i64, time_ms: i64, endpoint: *const c_char, url_style: c_int, headers: *const *const c_char, query_params: *const *const c_char, out_url: *mut *mut c_char) -> c_int;
    pub fn fbs_metadata_download_token_count(m: *const fbs_metadata) -> usize;
    pub fn fbs_metadata_download_token_at(m: *const fbs_metadata, index: usize) -> *const c_char;
    pub fn fbs_reference_create_download_token(r: *const fbs_reference, out_token: *mut *mut c_char) -> c_int;
    pub fn fbs_reference_create_download_token_async(r: *const fbs_reference, cb: fbs_string_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_reference_revoke_download_token(r: *const fbs_reference, token: *const c_char, out_metadata: *mut *mut fbs_metadata) -> c_int;
    pub fn fbs_reference_revoke_download_token_async(r: *const fbs_reference, token: *const c_char, cb: fbs_metadata_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_reference_download_url_for_token(r: *const fbs_reference, token: *const c_char, out_url: *mut *mut c_char) -> c_int;
    pub fn fbs_reference_list_with_metadata(r: *const fbs_reference, max_results: i64, page_token: *const c_char, out: *mut *mut fbs_list_result) -> c_int;
    pub fn fbs_list_result_item_metadata(lr: *const fbs_list_result, index: usize) -> *const fbs_metadata;
    pub fn fbs_reference_copy_to(source: *const fbs_reference, destination: *const fbs_reference, out_metadata: *mut *mut fbs_metadata) -> c_int;
    pub fn fbs_reference_list_with_metadata_async(r: *const fbs_reference, max_results: i64, page_token: *const c_char, cb: fbs_list_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_reference_copy_to_async(source: *const fbs_reference, destination: *const fbs_reference, cb: fbs_metadata_callback, user_data: *mut c_void) -> c_int;
}

// stream.h
unsafe extern "C" {
    pub fn fbs_reference_get_range(r: *const fbs_reference, offset: i64, length: i64, max_size: i64, out_bytes: *mut *mut c_void, out_length: *mut usize) -> c_int;
    pub fn fbs_reference_get_range_async(r: *const fbs_reference, offset: i64, length: i64, max_size: i64, cb: fbs_data_callback, user_data: *mut c_void) -> c_int;
    pub fn fbs_reference_read_range(r: *const fbs_reference, offset: i64, length: i64, buffer: *mut c_void, capacity: usize, out: *mut *mut fbs_task) -> c_int;
    pub fn fbs_reference_stream(r: *const fbs_reference, offset: i64, length: i64, sink: fbs_sink_callback, user_data: *mut c_void, out: *mut *mut fbs_task) -> c_int;
    pub fn fbs_reference_write_to_fd(r: *const fbs_reference, fd: c_int, out: *mut *mut fbs_task) -> c_int;
    pub fn fbs_reference_put_stream(r: *const fbs_reference, read: fbs_source_callback, user_data: *mut c_void, metadata: *const fbs_metadata, out: *mut *mut fbs_task) -> c_int;
    pub fn fbs_reference_put_fd(r: *const fbs_reference, fd: c_int, metadata: *const fbs_metadata, out: *mut *mut fbs_task) -> c_int;
}

// app_check.h
pub type fbs_app_check_token_callback = Option<unsafe extern "C" fn(status: c_int, token: *const c_char, expire_time_ms: i64, user_data: *mut c_void)>;
pub type fbs_app_check_provider = Option<unsafe extern "C" fn(limited_use: c_int, request: *mut fbs_app_check_request, user_data: *mut c_void)>;
pub type fbs_app_check_token_listener = Option<unsafe extern "C" fn(token: *const c_char, expire_time_ms: i64, user_data: *mut c_void)>;
unsafe extern "C" {
    pub fn fbs_app_check_new(project_id: *const c_char, app_id: *const c_char, api_key: *const c_char, out: *mut *mut fbs_app_check) -> c_int;
    pub fn fbs_app_check_free(app_check: *mut fbs_app_check);
    pub fn fbs_app_check_use_emulator(app_check: *mut fbs_app_check, host: *const c_char, port: c_int) -> c_int;
    pub fn fbs_app_check_set_token_auto_refresh_enabled(app_check: *mut fbs_app_check, enabled: c_int) -> c_int;
    pub fn fbs_app_check_is_token_auto_refresh_enabled(app_check: *const fbs_app_check) -> c_int;
    pub fn fbs_app_check_set_debug_provider(app_check: *mut fbs_app_check, debug_token: *const c_char) -> c_int;
    pub fn fbs_app_check_set_custom_provider(app_check: *mut fbs_app_check, fn_: fbs_app_check_provider, user_data: *mut c_void) -> c_int;
    pub fn fbs_app_check_set_custom_provider_full(app_check: *mut fbs_app_check, fn_: fbs_app_check_provider, user_data: *mut c_void,
                                                  destroy: fbs_destroy_notify) -> c_int;
    pub fn fbs_app_check_request_complete(request: *mut fbs_app_check_request, token: *const c_char, expire_time_ms: i64) -> c_int;
    pub fn fbs_app_check_request_fail(request: *mut fbs_app_check_request, message: *const c_char) -> c_int;
    pub fn fbs_app_check_set_token(app_check: *mut fbs_app_check, token: *const c_char, expire_time_ms: i64) -> c_int;
    pub fn fbs_app_check_get_token(app_check: *mut fbs_app_check, force_refresh: c_int, out_token: *mut *mut c_char,
                                   out_expire_time_ms: *mut i64) -> c_int;
    pub fn fbs_app_check_get_limited_use_token(app_check: *mut fbs_app_check, out_token: *mut *mut c_char, out_expire_time_ms: *mut i64) -> c_int;
    pub fn fbs_app_check_get_token_async(app_check: *mut fbs_app_check, force_refresh: c_int, cb: fbs_app_check_token_callback,
                                         user_data: *mut c_void) -> c_int;
    pub fn fbs_app_check_get_limited_use_token_async(app_check: *mut fbs_app_check, cb: fbs_app_check_token_callback,
                                                     user_data: *mut c_void) -> c_int;
    pub fn fbs_app_check_add_token_listener(app_check: *mut fbs_app_check, cb: fbs_app_check_token_listener, user_data: *mut c_void,
                                            destroy: fbs_destroy_notify, out_handle: *mut fbs_listener_handle) -> c_int;
    pub fn fbs_app_check_remove_token_listener(app_check: *mut fbs_app_check, handle: fbs_listener_handle) -> c_int;
    pub fn fbs_storage_use_app_check(storage: *mut fbs_storage, app_check: *mut fbs_app_check) -> c_int;
}
