"""Finding and loading ``libfbstorage.so``, and the ctypes signature of every C function.

The library is loaded lazily, on the first call of :func:`library`, so that ``import fbstorage``
and ``python -m fbstorage.emulator`` work on a machine where the library is absent.

Every function declared in ``include/fbstorage.h`` has one entry in :data:`SIGNATURES`. A
function whose return type is :data:`STATUS` returns an ``fbs_error_code``; it gets an
``errcheck`` that raises :class:`fbstorage.StorageError` built from the calling thread's last
error, read right after the call, on the same thread.

On loading, :func:`check_constants` compares this binding's copies of the header's constants
(codes, task statuses, log levels) with the library's own, listed by ``fbs_constant``.
"""

from __future__ import annotations

import ctypes
import os
import threading
from ctypes import (
    CFUNCTYPE,
    POINTER,
    c_char_p,
    c_double,
    c_int,
    c_int64,
    c_size_t,
    c_void_p,
)
from pathlib import Path
from typing import Any, Callable

from .errors import FBS_OK, StorageError

#: The ABI version of ``include/fbstorage.h`` this binding is written against.
ABI_VERSION = 2

#: ``FBS_TIME_ABSENT``: a metadata time the server did not send.
TIME_ABSENT = -(2**63)

LIBRARY_ENV_VAR = "FBSTORAGE_LIBRARY"
LIBRARY_FILE_NAME = "libfbstorage.so"


# -- opaque handle types --------------------------------------------------------------------
class _Storage(ctypes.Structure):
    """``fbs_storage`` (opaque)."""


class _Reference(ctypes.Structure):
    """``fbs_reference`` (opaque)."""


class _Metadata(ctypes.Structure):
    """``fbs_metadata`` (opaque)."""


class _Task(ctypes.Structure):
    """``fbs_task`` (opaque)."""


class _Snapshot(ctypes.Structure):
    """``fbs_snapshot`` (opaque)."""


class _ListResult(ctypes.Structure):
    """``fbs_list_result`` (opaque)."""


class _Auth(ctypes.Structure):
    """``fbs_auth`` (opaque)."""


class _User(ctypes.Structure):
    """``fbs_user`` (opaque)."""


class _Credential(ctypes.Structure):
    """``fbs_credential`` (opaque)."""


class _ActionCodeSettings(ctypes.Structure):
    """``fbs_action_code_settings`` (opaque)."""


class _TokenRequest(ctypes.Structure):
    """``fbs_token_request`` (opaque)."""


class _ServiceAccount(ctypes.Structure):
    """``fbs_service_account`` (opaque)."""


class _AppCheck(ctypes.Structure):
    """``fbs_app_check`` (opaque)."""


class _AppCheckRequest(ctypes.Structure):
    """``fbs_app_check_request`` (opaque)."""


StorageHandle = POINTER(_Storage)
ReferenceHandle = POINTER(_Reference)
MetadataHandle = POINTER(_Metadata)
TaskHandle = POINTER(_Task)
SnapshotHandle = POINTER(_Snapshot)
ListResultHandle = POINTER(_ListResult)
AuthHandle = POINTER(_Auth)
UserHandle = POINTER(_User)
CredentialHandle = POINTER(_Credential)
ActionCodeSettingsHandle = POINTER(_ActionCodeSettings)
TokenRequestHandle = POINTER(_TokenRequest)
ServiceAccountHandle = POINTER(_ServiceAccount)
AppCheckHandle = POINTER(_AppCheck)
AppCheckRequestHandle = POINTER(_AppCheckRequest)

# -- callback types -------------------------------------------------------------------------
#: ``const char *(*)(int force_refresh, void *user_data)``; returns an address (or None).
TOKEN_PROVIDER = CFUNCTYPE(c_void_p, c_int, c_void_p)
#: ``void (*)(int level, const char *line, void *user_data)``
LOG_HANDLER = CFUNCTYPE(None, c_int, c_char_p, c_void_p)
#: ``void (*)(const fbs_snapshot *, void *user_data)``
TASK_CALLBACK = CFUNCTYPE(None, SnapshotHandle, c_void_p)
COMPLETION_CALLBACK = CFUNCTYPE(None, c_int, c_void_p)
METADATA_CALLBACK = CFUNCTYPE(None, c_int, MetadataHandle, c_void_p)
LIST_CALLBACK = CFUNCTYPE(None, c_int, ListResultHandle, c_void_p)
STRING_CALLBACK = CFUNCTYPE(None, c_int, c_char_p, c_void_p)
DATA_CALLBACK = CFUNCTYPE(None, c_int, c_void_p, c_size_t, c_void_p)
#: ``void (*)(int status, const fbs_user *, void *user_data)``
USER_CALLBACK = CFUNCTYPE(None, c_int, UserHandle, c_void_p)
#: fbs_action_code_callback: status, operation, email, new_email (borrowed), user_data.
ACTION_CODE_CALLBACK = CFUNCTYPE(None, c_int, c_char_p, c_char_p, c_char_p, c_void_p)
#: ``void (*)(const fbs_user *user_or_null, void *user_data)``
AUTH_LISTENER = CFUNCTYPE(None, UserHandle, c_void_p)
#: ``void (*)(int force_refresh, fbs_token_request *, void *user_data)``
TOKEN_PROVIDER_ASYNC = CFUNCTYPE(None, c_int, TokenRequestHandle, c_void_p)
#: ``void (*)(int limited_use, fbs_app_check_request *, void *user_data)``
APP_CHECK_PROVIDER = CFUNCTYPE(None, c_int, AppCheckRequestHandle, c_void_p)
#: ``void (*)(int status, const char *token, int64_t expire_time_ms, void *user_data)``
APP_CHECK_TOKEN_CALLBACK = CFUNCTYPE(None, c_int, c_char_p, c_int64, c_void_p)
#: ``void (*)(void *user_data)``: fbs_destroy_notify, of the _full calls
DESTROY_NOTIFY = CFUNCTYPE(None, c_void_p)
#: ``void (*)(const char *token, int64_t expire_time_ms, void *user_data)``
APP_CHECK_TOKEN_LISTENER = CFUNCTYPE(None, c_char_p, c_int64, c_void_p)
#: ``int (*)(const void *bytes, size_t length, void *user_data)``: 0 takes the bytes.
SINK_CALLBACK = CFUNCTYPE(c_int, c_void_p, c_size_t, c_void_p)
#: ``int64_t (*)(void *buffer, size_t capacity, void *user_data)``: count read, 0 at the end.
SOURCE_CALLBACK = CFUNCTYPE(c_int64, c_void_p, c_size_t, c_void_p)
#: ``void *(*)(size_t length, void *user_data)`` and ``void (*)(void *memory, void *user_data)``
ALLOCATE = CFUNCTYPE(c_void_p, c_size_t, c_void_p)
RELEASE = CFUNCTYPE(None, c_void_p, c_void_p)


class Allocator(ctypes.Structure):
    """``fbs_allocator`` (fbstorage/operations.h): memory a download fills, from the caller."""
    _fields_ = [("allocate", ALLOCATE), ("release", RELEASE), ("user_data", c_void_p)]


class _StatusMarker:
    """Marks a function returning an ``fbs_error_code`` status in :data:`SIGNATURES`."""


#: Return type of functions that return FBS_OK or a negative fbs_error_code.
STATUS = _StatusMarker()

_M = MetadataHandle
_R = ReferenceHandle
_S = StorageHandle
_T = TaskHandle
_SN = SnapshotHandle
_LR = ListResultHandle
_A = AuthHandle
_U = UserHandle
_CR = CredentialHandle
_AC = ActionCodeSettingsHandle
_SA = ServiceAccountHandle

#: name -> (return type, argument types), in the order of the header.
SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    # Library
    "fbs_version": (c_char_p, []),
    "fbs_abi_version": (c_int, []),
    "fbs_last_error_message": (c_char_p, []),
    "fbs_last_error_http_status": (c_int, []),
    "fbs_last_error_server_response": (c_char_p, []),
    "fbs_error_name": (c_char_p, [c_int]),
    "fbs_constant": (c_char_p, [c_size_t, POINTER(c_int64)]),
    "fbs_string_free": (None, [c_void_p]),
    "fbs_data_free": (None, [c_void_p]),
    "fbs_library_set_log_handler": (STATUS, [LOG_HANDLER, c_void_p]),
    "fbs_library_system_ca_bundle": (STATUS, [POINTER(c_void_p)]),
    # Storage
    "fbs_storage_new": (STATUS, [c_char_p, POINTER(_S)]),
    "fbs_storage_free": (None, [_S]),
    "fbs_storage_close": (STATUS, [_S, c_int, c_double]),
    "fbs_storage_bucket": (c_char_p, [_S]),
    "fbs_storage_use_emulator": (STATUS, [_S, c_char_p, c_int]),
    "fbs_storage_use_endpoint": (STATUS, [_S, c_char_p]),
    "fbs_storage_set_auth_token": (STATUS, [_S, c_char_p]),
    "fbs_storage_set_auth_token_provider": (STATUS, [_S, TOKEN_PROVIDER, c_void_p]),
    "fbs_storage_set_auth_token_provider_full": (STATUS, [_S, TOKEN_PROVIDER, c_void_p, DESTROY_NOTIFY]),
    "fbs_storage_set_app_check_token": (STATUS, [_S, c_char_p]),
    "fbs_storage_set_max_upload_retry_time": (STATUS, [_S, c_double]),
    "fbs_storage_get_max_upload_retry_time": (STATUS, [_S, POINTER(c_double)]),
    "fbs_storage_set_max_download_retry_time": (STATUS, [_S, c_double]),
    "fbs_storage_get_max_download_retry_time": (STATUS, [_S, POINTER(c_double)]),
    "fbs_storage_set_max_operation_retry_time": (STATUS, [_S, c_double]),
    "fbs_storage_get_max_operation_retry_time": (STATUS, [_S, POINTER(c_double)]),
    "fbs_storage_set_upload_chunk_size": (STATUS, [_S, c_int64]),
    "fbs_storage_get_upload_chunk_size": (STATUS, [_S, POINTER(c_int64)]),
    "fbs_storage_set_connect_timeout": (STATUS, [_S, c_double]),
    "fbs_storage_get_connect_timeout": (STATUS, [_S, POINTER(c_double)]),
    "fbs_storage_set_loopback_refused_grace": (STATUS, [_S, c_double]),
    "fbs_storage_get_loopback_refused_grace": (STATUS, [_S, POINTER(c_double)]),
    "fbs_storage_set_verify_md5": (STATUS, [_S, c_int]),
    "fbs_storage_set_ca_file": (STATUS, [_S, c_char_p]),
    "fbs_storage_set_proxy": (STATUS, [_S, c_char_p, c_char_p, c_char_p, c_char_p]),
    "fbs_storage_set_max_upload_speed": (STATUS, [_S, c_int64]),
    "fbs_storage_get_max_upload_speed": (STATUS, [_S, POINTER(c_int64)]),
    "fbs_storage_set_max_download_speed": (STATUS, [_S, c_int64]),
    "fbs_storage_get_max_download_speed": (STATUS, [_S, POINTER(c_int64)]),
    # References
    "fbs_storage_reference": (STATUS, [_S, c_char_p, POINTER(_R)]),
    "fbs_storage_reference_for_url": (STATUS, [_S, c_char_p, POINTER(_R)]),
    "fbs_reference_child": (STATUS, [_R, c_char_p, POINTER(_R)]),
    "fbs_reference_parent": (STATUS, [_R, POINTER(_R)]),
    "fbs_reference_root": (STATUS, [_R, POINTER(_R)]),
    "fbs_reference_name": (c_char_p, [_R]),
    "fbs_reference_full_path": (c_char_p, [_R]),
    "fbs_reference_bucket": (c_char_p, [_R]),
    "fbs_reference_free": (None, [_R]),
    # Metadata
    "fbs_metadata_new": (STATUS, [POINTER(_M)]),
    "fbs_metadata_free": (None, [_M]),
    "fbs_metadata_copy": (STATUS, [_M, POINTER(_M)]),
    "fbs_metadata_set_cache_control": (STATUS, [_M, c_char_p]),
    "fbs_metadata_set_content_disposition": (STATUS, [_M, c_char_p]),
    "fbs_metadata_set_content_encoding": (STATUS, [_M, c_char_p]),
    "fbs_metadata_set_content_language": (STATUS, [_M, c_char_p]),
    "fbs_metadata_set_content_type": (STATUS, [_M, c_char_p]),
    "fbs_metadata_cache_control": (c_char_p, [_M]),
    "fbs_metadata_content_disposition": (c_char_p, [_M]),
    "fbs_metadata_content_encoding": (c_char_p, [_M]),
    "fbs_metadata_content_language": (c_char_p, [_M]),
    "fbs_metadata_content_type": (c_char_p, [_M]),
    "fbs_metadata_bucket": (c_char_p, [_M]),
    "fbs_metadata_full_path": (c_char_p, [_M]),
    "fbs_metadata_name": (c_char_p, [_M]),
    "fbs_metadata_md5_hash": (c_char_p, [_M]),
    "fbs_metadata_crc32c": (c_char_p, [_M]),
    "fbs_metadata_size": (c_int64, [_M]),
    "fbs_metadata_generation": (c_int64, [_M]),
    "fbs_metadata_metageneration": (c_int64, [_M]),
    "fbs_metadata_time_created_ms": (c_int64, [_M]),
    "fbs_metadata_updated_ms": (c_int64, [_M]),
    "fbs_metadata_set_custom": (STATUS, [_M, c_char_p, c_char_p]),
    "fbs_metadata_remove_custom": (STATUS, [_M, c_char_p]),
    "fbs_metadata_clear_custom": (STATUS, [_M]),
    "fbs_metadata_custom": (c_char_p, [_M, c_char_p]),
    "fbs_metadata_custom_count": (c_size_t, [_M]),
    "fbs_metadata_custom_key_at": (c_char_p, [_M, c_size_t]),
    # Tasks
    "fbs_reference_put_data": (STATUS, [_R, c_void_p, c_size_t, _M, POINTER(_T)]),
    "fbs_reference_put_file": (STATUS, [_R, c_char_p, _M, POINTER(_T)]),
    "fbs_task_upload_session": (STATUS, [_T, POINTER(c_void_p)]),
    "fbs_reference_put_file_resuming": (STATUS, [_R, c_char_p, c_char_p, _M, POINTER(_T)]),
    "fbs_reference_write_to_file": (STATUS, [_R, c_char_p, POINTER(_T)]),
    "fbs_task_observe": (STATUS, [_T, c_int, TASK_CALLBACK, c_void_p, POINTER(c_int64)]),
    "fbs_task_observe_full": (STATUS, [_T, c_int, TASK_CALLBACK, c_void_p, DESTROY_NOTIFY, POINTER(c_int64)]),
    "fbs_task_remove_observer": (STATUS, [_T, c_int64]),
    "fbs_task_remove_all_observers_for_status": (STATUS, [_T, c_int]),
    "fbs_task_remove_all_observers": (STATUS, [_T]),
    "fbs_task_pause": (STATUS, [_T]),
    "fbs_task_resume": (STATUS, [_T]),
    "fbs_task_cancel": (STATUS, [_T]),
    "fbs_task_set_max_speed": (STATUS, [_T, c_int64]),
    "fbs_task_get_max_speed": (STATUS, [_T, POINTER(c_int64)]),
    "fbs_task_wait": (STATUS, [_T, c_int64]),
    "fbs_task_snapshot": (STATUS, [_T, POINTER(_SN)]),
    "fbs_task_free": (None, [_T]),
    # Snapshots
    "fbs_snapshot_status": (c_int, [_SN]),
    "fbs_snapshot_bytes_transferred": (c_int64, [_SN]),
    "fbs_snapshot_total_bytes": (c_int64, [_SN]),
    "fbs_snapshot_error_code": (c_int, [_SN]),
    "fbs_snapshot_error_message": (c_char_p, [_SN]),
    "fbs_snapshot_error_http_status": (c_int, [_SN]),
    "fbs_snapshot_error_server_response": (c_char_p, [_SN]),
    "fbs_snapshot_metadata": (_M, [_SN]),
    "fbs_snapshot_reference": (_R, [_SN]),
    "fbs_snapshot_free": (None, [_SN]),
    # Operations
    "fbs_reference_get_metadata": (STATUS, [_R, POINTER(_M)]),
    "fbs_reference_get_metadata_async": (STATUS, [_R, METADATA_CALLBACK, c_void_p]),
    "fbs_reference_update_metadata": (STATUS, [_R, _M, POINTER(_M)]),
    "fbs_reference_update_metadata_async": (STATUS, [_R, _M, METADATA_CALLBACK, c_void_p]),
    "fbs_reference_delete": (STATUS, [_R]),
    "fbs_reference_delete_async": (STATUS, [_R, COMPLETION_CALLBACK, c_void_p]),
    "fbs_reference_download_url": (STATUS, [_R, POINTER(c_void_p)]),
    "fbs_reference_download_url_async": (STATUS, [_R, STRING_CALLBACK, c_void_p]),
    "fbs_reference_get_data": (STATUS, [_R, c_int64, POINTER(c_void_p), POINTER(c_size_t)]),
    "fbs_reference_get_data_async": (STATUS, [_R, c_int64, DATA_CALLBACK, c_void_p]),
    "fbs_reference_get_data_into": (STATUS, [_R, c_int64, POINTER(Allocator), POINTER(c_void_p), POINTER(c_size_t)]),
    "fbs_reference_get_data_into_async": (STATUS, [_R, c_int64, POINTER(Allocator), DATA_CALLBACK, c_void_p]),
    # Streams and ranges
    "fbs_reference_get_range": (STATUS, [_R, c_int64, c_int64, c_int64, POINTER(c_void_p), POINTER(c_size_t)]),
    "fbs_reference_get_range_async": (STATUS, [_R, c_int64, c_int64, c_int64, DATA_CALLBACK, c_void_p]),
    "fbs_reference_read_range": (STATUS, [_R, c_int64, c_int64, c_void_p, c_size_t, POINTER(_T)]),
    "fbs_reference_stream": (STATUS, [_R, c_int64, c_int64, SINK_CALLBACK, c_void_p, POINTER(_T)]),
    "fbs_reference_write_to_fd": (STATUS, [_R, c_int, POINTER(_T)]),
    "fbs_reference_put_stream": (STATUS, [_R, SOURCE_CALLBACK, c_void_p, _M, POINTER(_T)]),
    "fbs_reference_put_fd": (STATUS, [_R, c_int, _M, POINTER(_T)]),
    "fbs_reference_list": (STATUS, [_R, c_int64, c_char_p, POINTER(_LR)]),
    "fbs_reference_list_async": (STATUS, [_R, c_int64, c_char_p, LIST_CALLBACK, c_void_p]),
    "fbs_reference_list_all": (STATUS, [_R, POINTER(_LR)]),
    "fbs_reference_list_all_async": (STATUS, [_R, LIST_CALLBACK, c_void_p]),
    "fbs_list_result_item_count": (c_size_t, [_LR]),
    "fbs_list_result_item": (_R, [_LR, c_size_t]),
    "fbs_list_result_prefix_count": (c_size_t, [_LR]),
    "fbs_list_result_prefix": (_R, [_LR, c_size_t]),
    "fbs_list_result_item_paths": (c_char_p, [_LR]),
    "fbs_list_result_prefix_paths": (c_char_p, [_LR]),
    "fbs_list_result_page_token": (c_char_p, [_LR]),
    "fbs_list_result_free": (None, [_LR]),
    # App Check
    "fbs_app_check_new": (STATUS, [c_char_p, c_char_p, c_char_p, POINTER(AppCheckHandle)]),
    "fbs_app_check_free": (None, [AppCheckHandle]),
    "fbs_app_check_use_emulator": (STATUS, [AppCheckHandle, c_char_p, c_int]),
    "fbs_app_check_set_token_auto_refresh_enabled": (STATUS, [AppCheckHandle, c_int]),
    "fbs_app_check_is_token_auto_refresh_enabled": (c_int, [AppCheckHandle]),
    "fbs_app_check_set_debug_provider": (STATUS, [AppCheckHandle, c_char_p]),
    "fbs_app_check_set_custom_provider": (STATUS, [AppCheckHandle, APP_CHECK_PROVIDER, c_void_p]),
    "fbs_app_check_set_custom_provider_full": (STATUS, [AppCheckHandle, APP_CHECK_PROVIDER, c_void_p, DESTROY_NOTIFY]),
    "fbs_app_check_request_complete": (STATUS, [AppCheckRequestHandle, c_char_p, c_int64]),
    "fbs_app_check_request_fail": (STATUS, [AppCheckRequestHandle, c_char_p]),
    "fbs_app_check_set_token": (STATUS, [AppCheckHandle, c_char_p, c_int64]),
    "fbs_app_check_get_token": (STATUS, [AppCheckHandle, c_int, POINTER(c_void_p), POINTER(c_int64)]),
    "fbs_app_check_get_limited_use_token": (STATUS, [AppCheckHandle, POINTER(c_void_p), POINTER(c_int64)]),
    "fbs_app_check_get_token_async": (STATUS, [AppCheckHandle, c_int, APP_CHECK_TOKEN_CALLBACK, c_void_p]),
    "fbs_app_check_get_limited_use_token_async": (STATUS, [AppCheckHandle, APP_CHECK_TOKEN_CALLBACK, c_void_p]),
    "fbs_app_check_add_token_listener": (STATUS, [AppCheckHandle, APP_CHECK_TOKEN_LISTENER, c_void_p, DESTROY_NOTIFY,
                                                  POINTER(c_int64)]),
    "fbs_app_check_remove_token_listener": (STATUS, [AppCheckHandle, c_int64]),
    "fbs_storage_use_app_check": (STATUS, [_S, AppCheckHandle]),
    # Auth
    "fbs_auth_new": (STATUS, [c_char_p, c_char_p, POINTER(_A)]),
    "fbs_auth_free": (None, [_A]),
    "fbs_auth_use_emulator": (STATUS, [_A, c_char_p, c_int]),
    "fbs_auth_set_persistence_file": (STATUS, [_A, c_char_p]),
    "fbs_auth_set_persistence_for_app": (STATUS, [_A, c_char_p, c_char_p]),
    "fbs_auth_sign_in_anonymously": (STATUS, [_A, POINTER(_U)]),
    "fbs_auth_sign_in_anonymously_async": (STATUS, [_A, USER_CALLBACK, c_void_p]),
    "fbs_auth_create_user": (STATUS, [_A, c_char_p, c_char_p, POINTER(_U)]),
    "fbs_auth_create_user_async": (STATUS, [_A, c_char_p, c_char_p, USER_CALLBACK, c_void_p]),
    "fbs_auth_sign_in_with_email": (STATUS, [_A, c_char_p, c_char_p, POINTER(_U)]),
    "fbs_auth_sign_in_with_email_async": (STATUS, [_A, c_char_p, c_char_p, USER_CALLBACK, c_void_p]),
    "fbs_auth_sign_in_with_custom_token": (STATUS, [_A, c_char_p, POINTER(_U)]),
    "fbs_auth_sign_in_with_custom_token_async": (STATUS, [_A, c_char_p, USER_CALLBACK, c_void_p]),
    "fbs_auth_sign_in_with_refresh_token": (STATUS, [_A, c_char_p, POINTER(_U)]),
    "fbs_auth_sign_in_with_refresh_token_async": (STATUS, [_A, c_char_p, USER_CALLBACK, c_void_p]),
    "fbs_auth_sign_out": (STATUS, [_A]),
    "fbs_auth_delete_user": (STATUS, [_A]),
    "fbs_auth_update_profile": (STATUS, [_A, c_char_p, c_char_p, POINTER(_U)]),
    "fbs_auth_update_profile_async": (STATUS, [_A, c_char_p, c_char_p, USER_CALLBACK, c_void_p]),
    "fbs_auth_delete_user_async": (STATUS, [_A, COMPLETION_CALLBACK, c_void_p]),
    "fbs_credential_email": (STATUS, [c_char_p, c_char_p, POINTER(_CR)]),
    "fbs_credential_idp": (STATUS, [c_char_p, c_char_p, c_char_p, POINTER(_CR)]),
    "fbs_credential_oauth": (STATUS, [c_char_p, c_char_p, c_char_p, c_char_p, c_char_p, POINTER(_CR)]),
    "fbs_credential_free": (None, [_CR]),
    "fbs_auth_sign_in_with_credential": (STATUS, [_A, _CR, POINTER(_U)]),
    "fbs_auth_sign_in_with_credential_async": (STATUS, [_A, _CR, USER_CALLBACK, c_void_p]),
    "fbs_auth_link_with_credential": (STATUS, [_A, _CR, POINTER(_U)]),
    "fbs_auth_link_with_credential_async": (STATUS, [_A, _CR, USER_CALLBACK, c_void_p]),
    "fbs_auth_reauthenticate": (STATUS, [_A, _CR, POINTER(_U)]),
    "fbs_auth_reauthenticate_async": (STATUS, [_A, _CR, USER_CALLBACK, c_void_p]),
    "fbs_auth_unlink": (STATUS, [_A, c_char_p, POINTER(_U)]),
    "fbs_auth_unlink_async": (STATUS, [_A, c_char_p, USER_CALLBACK, c_void_p]),
    "fbs_auth_update_email": (STATUS, [_A, c_char_p, POINTER(_U)]),
    "fbs_auth_update_email_async": (STATUS, [_A, c_char_p, USER_CALLBACK, c_void_p]),
    "fbs_auth_update_password": (STATUS, [_A, c_char_p, POINTER(_U)]),
    "fbs_auth_update_password_async": (STATUS, [_A, c_char_p, USER_CALLBACK, c_void_p]),
    "fbs_auth_reload": (STATUS, [_A, POINTER(_U)]),
    "fbs_auth_reload_async": (STATUS, [_A, USER_CALLBACK, c_void_p]),
    "fbs_auth_send_email_verification": (STATUS, [_A]),
    "fbs_auth_send_email_verification_async": (STATUS, [_A, COMPLETION_CALLBACK, c_void_p]),
    "fbs_auth_verify_before_update_email": (STATUS, [_A, c_char_p]),
    "fbs_auth_verify_before_update_email_async": (STATUS, [_A, c_char_p, COMPLETION_CALLBACK, c_void_p]),
    "fbs_auth_send_password_reset_email": (STATUS, [_A, c_char_p]),
    "fbs_auth_send_password_reset_email_async": (STATUS, [_A, c_char_p, COMPLETION_CALLBACK, c_void_p]),
    "fbs_auth_fetch_sign_in_methods": (STATUS, [_A, c_char_p, POINTER(c_void_p)]),
    "fbs_user_is_new_user": (c_int, [_U]),
    "fbs_user_additional_provider_id": (c_char_p, [_U]),
    "fbs_user_additional_profile_json": (c_char_p, [_U]),
    "fbs_user_additional_username": (c_char_p, [_U]),
    "fbs_auth_fetch_sign_in_methods_async": (STATUS, [_A, c_char_p, STRING_CALLBACK, c_void_p]),
    "fbs_auth_verify_password_reset_code": (STATUS, [_A, c_char_p, POINTER(c_void_p)]),
    "fbs_auth_verify_password_reset_code_async": (STATUS, [_A, c_char_p, STRING_CALLBACK, c_void_p]),
    "fbs_auth_check_action_code": (STATUS, [_A, c_char_p, POINTER(c_void_p), POINTER(c_void_p), POINTER(c_void_p)]),
    "fbs_auth_check_action_code_async": (STATUS, [_A, c_char_p, ACTION_CODE_CALLBACK, c_void_p]),
    "fbs_auth_confirm_password_reset": (STATUS, [_A, c_char_p, c_char_p]),
    "fbs_auth_confirm_password_reset_async": (STATUS, [_A, c_char_p, c_char_p, COMPLETION_CALLBACK, c_void_p]),
    "fbs_auth_apply_action_code": (STATUS, [_A, c_char_p]),
    "fbs_auth_apply_action_code_async": (STATUS, [_A, c_char_p, COMPLETION_CALLBACK, c_void_p]),
    "fbs_action_code_settings_new": (STATUS, [c_char_p, c_int, POINTER(_AC)]),
    "fbs_action_code_settings_set_ios_bundle_id": (STATUS, [_AC, c_char_p]),
    "fbs_action_code_settings_set_android_package_name": (STATUS, [_AC, c_char_p, c_int, c_char_p]),
    "fbs_action_code_settings_set_link_domain": (STATUS, [_AC, c_char_p]),
    "fbs_action_code_settings_free": (None, [_AC]),
    "fbs_auth_send_sign_in_link_to_email": (STATUS, [_A, c_char_p, _AC]),
    "fbs_auth_send_sign_in_link_to_email_async": (STATUS, [_A, c_char_p, _AC, COMPLETION_CALLBACK, c_void_p]),
    "fbs_auth_is_sign_in_with_email_link": (c_int, [_A, c_char_p]),
    "fbs_auth_sign_in_with_email_link": (STATUS, [_A, c_char_p, c_char_p, POINTER(_U)]),
    "fbs_auth_sign_in_with_email_link_async": (STATUS, [_A, c_char_p, c_char_p, USER_CALLBACK, c_void_p]),
    "fbs_auth_current_user": (STATUS, [_A, POINTER(_U)]),
    "fbs_auth_get_id_token": (STATUS, [_A, c_int, POINTER(c_void_p)]),
    "fbs_auth_get_id_token_async": (STATUS, [_A, c_int, STRING_CALLBACK, c_void_p]),
    "fbs_auth_add_state_listener": (STATUS, [_A, AUTH_LISTENER, c_void_p, POINTER(c_int64)]),
    "fbs_auth_add_id_token_listener": (STATUS, [_A, AUTH_LISTENER, c_void_p, POINTER(c_int64)]),
    "fbs_auth_remove_listener": (STATUS, [_A, c_int64]),
    "fbs_user_uid": (c_char_p, [_U]),
    "fbs_user_email": (c_char_p, [_U]),
    "fbs_user_display_name": (c_char_p, [_U]),
    "fbs_user_photo_url": (c_char_p, [_U]),
    "fbs_user_is_email_verified": (c_int, [_U]),
    "fbs_user_is_anonymous": (c_int, [_U]),
    "fbs_user_sign_in_provider": (c_char_p, [_U]),
    "fbs_user_id_token": (c_char_p, [_U]),
    "fbs_user_refresh_token": (c_char_p, [_U]),
    "fbs_user_claims_json": (c_char_p, [_U]),
    "fbs_user_token_expiration": (c_int64, [_U]),
    "fbs_user_token_issued_at": (c_int64, [_U]),
    "fbs_user_auth_time": (c_int64, [_U]),
    "fbs_user_provider_count": (c_size_t, [_U]),
    "fbs_user_provider_id": (c_char_p, [_U, c_size_t]),
    "fbs_user_provider_uid": (c_char_p, [_U, c_size_t]),
    "fbs_user_provider_email": (c_char_p, [_U, c_size_t]),
    "fbs_user_provider_display_name": (c_char_p, [_U, c_size_t]),
    "fbs_user_provider_photo_url": (c_char_p, [_U, c_size_t]),
    "fbs_user_provider_phone_number": (c_char_p, [_U, c_size_t]),
    "fbs_user_creation_time": (c_int64, [_U]),
    "fbs_user_last_sign_in_time": (c_int64, [_U]),
    "fbs_user_free": (None, [_U]),
    "fbs_storage_use_auth": (STATUS, [_S, _A]),
    "fbs_storage_set_auth_token_provider_async": (STATUS, [_S, TOKEN_PROVIDER_ASYNC, c_void_p]),
    "fbs_storage_set_auth_token_provider_async_full": (STATUS, [_S, TOKEN_PROVIDER_ASYNC, c_void_p, DESTROY_NOTIFY]),
    "fbs_token_request_complete": (STATUS, [TokenRequestHandle, c_char_p]),
    "fbs_token_request_fail": (STATUS, [TokenRequestHandle, c_char_p]),
    # Admin access (fbstorage/admin.h)
    "fbs_service_account_from_file": (STATUS, [c_char_p, POINTER(_SA)]),
    "fbs_service_account_from_json": (STATUS, [c_char_p, POINTER(_SA)]),
    "fbs_service_account_from_environment": (STATUS, [POINTER(_SA)]),
    "fbs_service_account_free": (None, [_SA]),
    "fbs_service_account_email": (c_char_p, [_SA]),
    "fbs_service_account_project_id": (c_char_p, [_SA]),
    "fbs_service_account_set_scopes": (STATUS, [_SA, c_char_p]),
    "fbs_service_account_access_token": (STATUS, [_SA, c_int, POINTER(c_void_p)]),
    "fbs_storage_use_service_account": (STATUS, [_S, _SA]),
    "fbs_storage_set_access_token": (STATUS, [_S, c_char_p]),
    "fbs_storage_set_access_token_provider": (STATUS, [_S, TOKEN_PROVIDER, c_void_p]),
    "fbs_service_account_sign_url": (STATUS, [_SA, c_char_p, c_char_p, c_char_p, c_int64, c_int64, c_char_p, c_int,
                                              POINTER(c_char_p), POINTER(c_char_p), POINTER(c_void_p)]),
    "fbs_metadata_download_token_count": (c_size_t, [_M]),
    "fbs_metadata_download_token_at": (c_char_p, [_M, c_size_t]),
    "fbs_reference_create_download_token": (STATUS, [_R, POINTER(c_void_p)]),
    "fbs_reference_revoke_download_token": (STATUS, [_R, c_char_p, POINTER(_M)]),
    "fbs_reference_download_url_for_token": (STATUS, [_R, c_char_p, POINTER(c_void_p)]),
    "fbs_reference_list_with_metadata": (STATUS, [_R, c_int64, c_char_p, POINTER(_LR)]),
    "fbs_list_result_item_metadata": (_M, [_LR, c_size_t]),
    "fbs_reference_copy_to": (STATUS, [_R, _R, POINTER(_M)]),
    "fbs_reference_list_with_metadata_async": (STATUS, [_R, c_int64, c_char_p, LIST_CALLBACK, c_void_p]),
    "fbs_reference_copy_to_async": (STATUS, [_R, _R, METADATA_CALLBACK, c_void_p]),
    "fbs_reference_create_download_token_async": (STATUS, [_R, STRING_CALLBACK, c_void_p]),
    "fbs_reference_revoke_download_token_async": (STATUS, [_R, c_char_p, METADATA_CALLBACK, c_void_p]),
}


def candidate_paths() -> list[Path]:
    """The places searched for the library, in order.

    ``$FBSTORAGE_LIBRARY`` when set (and then only it), else the copy inside this package
    (installed from a wheel), else the project's build folder (``make lib``).
    """
    override = os.environ.get(LIBRARY_ENV_VAR)
    if override:
        return [Path(override)]
    package_dir = Path(__file__).resolve().parent
    repository_root = package_dir.parents[2]
    return [package_dir / LIBRARY_FILE_NAME, repository_root / "build" / "lib" / LIBRARY_FILE_NAME]


def _raise_on_error_status(result: int, function: Any, arguments: tuple[Any, ...]) -> int:
    """errcheck for :data:`STATUS` functions: runs on the calling thread right after the call."""
    if result != FBS_OK:
        raise StorageError.from_last_error(_loaded, result)
    return result


def _bind(cdll: ctypes.CDLL) -> ctypes.CDLL:
    """Declares the signature of every function of :data:`SIGNATURES` on ``cdll``."""
    for name, (restype, argtypes) in SIGNATURES.items():
        function = getattr(cdll, name)
        function.argtypes = argtypes
        if restype is STATUS:
            function.restype = c_int
            function.errcheck = _raise_on_error_status
        else:
            function.restype = restype
    return cdll


_loaded: Any = None
_loaded_path: Path | None = None
_load_lock = threading.Lock()


def library() -> Any:
    """The loaded library, its functions typed. Loads it on the first call.

    Raises :class:`OSError` naming every place tried when it cannot be found or loaded, or
    when its ABI version differs from the one this binding was written for; ImportError when a
    constant of this binding differs from the library's (:func:`check_constants`).
    """
    global _loaded, _loaded_path
    if _loaded is not None:
        return _loaded
    with _load_lock:
        if _loaded is not None:
            return _loaded
        failures: list[str] = []
        for path in candidate_paths():
            if not path.is_file():
                failures.append(f"{path} (not found)")
                continue
            try:
                cdll = ctypes.CDLL(str(path))
            except OSError as error:
                failures.append(f"{path} ({error})")
                continue
            abi = cdll.fbs_abi_version()
            if abi != ABI_VERSION:
                raise OSError(
                    f"{path} has ABI version {abi}, this fbstorage binding needs {ABI_VERSION}"
                )
            bound = _bind(cdll)
            check_constants(bound, path)
            _loaded_path = path
            _loaded = bound
            return _loaded
        raise OSError(
            "libfbstorage.so could not be loaded; tried:\n  "
            + "\n  ".join(failures)
            + f"\nBuild it with `make lib`, or set {LIBRARY_ENV_VAR} to its path."
        )


def library_constants(cdll: Any) -> dict[str, int]:
    """The header's integer constants as the library was built with them (``fbs_constant``)."""
    constants: dict[str, int] = {}
    value = c_int64()
    index = 0
    while (name := cdll.fbs_constant(index, ctypes.byref(value))) is not None:
        constants[name.decode()] = value.value
        index += 1
    return constants


def binding_constants() -> dict[str, int]:
    """This binding's copies of the header's constants, by their names in the header."""
    from .errors import StorageErrorCode
    from .log import DEBUG, ERROR, INFO, WARNING
    from .storage import CloseMode
    from .task import TaskStatus

    c_names = {StorageErrorCode.PATH_ERROR: "FBS_ERR_PATH"}
    return {
        "FBS_ABI_VERSION": ABI_VERSION,
        "FBS_TIME_ABSENT": TIME_ABSENT,
        "FBS_OK": FBS_OK,
        **{c_names.get(code, f"FBS_ERR_{code.name}"): code.value for code in StorageErrorCode},
        **{f"FBS_TASK_STATUS_{status.name}": status.value for status in TaskStatus},
        **{f"FBS_CLOSE_{mode.name}": mode.value for mode in CloseMode},
        "FBS_LOG_ERROR": ERROR,
        "FBS_LOG_WARNING": WARNING,
        "FBS_LOG_INFO": INFO,
        "FBS_LOG_DEBUG": DEBUG,
    }


#: Families of constants this binding copies whole: the library may have none this binding lacks.
_COPIED_FAMILIES = ("FBS_ERR_", "FBS_TASK_STATUS_", "FBS_LOG_", "FBS_CLOSE_")


def check_constants(cdll: Any, path: Path) -> None:
    """Raises ImportError naming the first constant this binding has a copy of that differs
    from the library's, or that one side lacks."""
    ours, theirs = binding_constants(), library_constants(cdll)
    for name, value in ours.items():
        if name not in theirs:
            raise ImportError(f"{name} is {value} in this fbstorage binding but missing from {path}")
        if theirs[name] != value:
            raise ImportError(f"{name} is {value} in this fbstorage binding but {theirs[name]} in {path}")
    for name, value in theirs.items():
        if name.startswith(_COPIED_FAMILIES) and name not in ours:
            raise ImportError(f"{name} ({value}) of {path} is unknown to this fbstorage binding")


def library_path() -> Path:
    """The file the library was loaded from (loads it if needed)."""
    library()
    assert _loaded_path is not None
    return _loaded_path


def call_for_out(function: Callable[..., int], *arguments: Any, out_type: Any) -> Any:
    """Calls ``function(*arguments, &out)`` and returns ``out`` (an ``out_type`` instance)."""
    out = out_type()
    function(*arguments, ctypes.byref(out))
    return out


def take_string(address: int | None) -> str | None:
    """Decodes and releases a ``char *`` the library handed over (``fbs_string_free``)."""
    if not address:
        return None
    try:
        return ctypes.string_at(address).decode("utf-8")
    finally:
        library().fbs_string_free(address)

