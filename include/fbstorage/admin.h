/* fbstorage/admin.h — admin access: service accounts and OAuth2 access tokens, download
 * tokens, V4 signed URLs
 * Part of fbstorage.h (include that one); the conventions stated there hold here. */
#ifndef FBSTORAGE_ADMIN_H
#define FBSTORAGE_ADMIN_H

#include "common.h"
#include "storage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------
 * Admin access. A storage that sends an OAuth2 access token ("Authorization: Bearer") acts as
 * a service account or a Google user with Cloud IAM rights: Security Rules do not apply. The
 * token comes from a service-account key (fbs_service_account), or from the caller (gcloud
 * auth print-access-token, a metadata server, workload identity): fbs_storage_set_access_token
 * and fbs_storage_set_access_token_provider. Any of these replaces the storage's other token
 * source (an ID token, an auth), and the reverse.
 *
 * Secrets: private keys stay in libcrypto (OpenSSL, already loaded with libcurl); access tokens
 * and assertions never appear in log lines or error messages, and error messages never quote
 * a key file.
 * ---------------------------------------------------------------------------------------- */

/* A service account's JSON key (type "service_account") and the access tokens it obtains:
 * an RS256-signed JWT assertion (iss = the account's email, aud = the key's token_uri, scope,
 * iat = now, exp = iat + 1 hour) posted to token_uri with the JWT-bearer grant (RFC 7523).
 * The token is kept and renewed when less than 5 minutes of it are left, and once when a
 * request gets 401; concurrent requests share one renewal, and requests whose token is fresh
 * never wait. The exchange is retried (transport failures, 429, 5xx) until the operation
 * deadline, 120 s. Each service account owns a transfer thread and a callback thread.
 * A key file whose token_uri is "http://HOST:PORT/oauth2.googleapis.com/token" exchanges with
 * the bundled emulator (fbstorage.emulator --service-account key.json). */
typedef struct fbs_service_account fbs_service_account;

/* Reads a key: from a file (path), from its JSON text, or from the file named by the
 * GOOGLE_APPLICATION_CREDENTIALS environment variable, as Google's client libraries find it.
 * Ownership: *out is the caller's; release it with fbs_service_account_free().
 * Errors: FBS_ERR_CREDENTIAL_INVALID (missing or unreadable file, variable unset, not JSON,
 * "type" other than "service_account", no client_email or private_key, a private key that is
 * not an RSA PEM key, a token_uri that is not https or loopback http: the message says which,
 * never quoting the key), FBS_ERR_INVALID_ARGUMENT (NULL or not UTF-8). */
int fbs_service_account_from_file(const char *path, fbs_service_account **out);
int fbs_service_account_from_json(const char *json, fbs_service_account **out);
int fbs_service_account_from_environment(fbs_service_account **out);

/* Releases the handle. Storages that use the service account keep it alive until they are
 * freed or switch away from it. */
void fbs_service_account_free(fbs_service_account *account);

/* The key's client_email and project_id (NULL when the key has none), lent until the handle
 * is released. */
const char *fbs_service_account_email(const fbs_service_account *account);
const char *fbs_service_account_project_id(const fbs_service_account *account);

/* The OAuth2 scopes asked for, space-separated (default
 * "https://www.googleapis.com/auth/cloud-platform"). Changing them drops the current token.
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL, empty, a control character). */
int fbs_service_account_set_scopes(fbs_service_account *account, const char *scopes);

/* A current access token, exchanged first when none is fresh or force_refresh is non-zero
 * (blocking). Release *out_token with fbs_string_free().
 * Errors: FBS_ERR_CREDENTIAL_CLOCK_SKEW (the endpoint refused the assertion's iat/exp: fix this
 * machine's clock), FBS_ERR_CREDENTIAL_REJECTED (401, invalid_grant, invalid_client: a deleted
 * or disabled key), FBS_ERR_UNKNOWN (another refusal; the message quotes the endpoint's
 * error), FBS_ERR_RETRY_LIMIT_EXCEEDED (unreachable until the deadline). Storage requests that
 * need a token fail with the same errors. */
int fbs_service_account_access_token(fbs_service_account *account, int force_refresh, char **out_token);

/* Makes the storage's requests act as the service account (NULL: no token source). */
int fbs_storage_use_service_account(fbs_storage *storage, fbs_service_account *account);

/* Sends `token` as "Authorization: Bearer <token>" with every request (NULL: none).
 * Errors: FBS_ERR_INVALID_ARGUMENT (a control character in the token). */
int fbs_storage_set_access_token(fbs_storage *storage, const char *token);

/* As fbs_storage_set_auth_token_provider() (storage.h): asked on the transfer thread before
 * each request, force_refresh non-zero after a 401; its tokens go as "Bearer". */
int fbs_storage_set_access_token_provider(fbs_storage *storage, fbs_token_provider fn, void *user_data);

/* ------------------------------------------------------------------------------------------
 * V4 signed URLs: GCS's XML API URL that lets anyone holding it do one thing (method) to one
 * object until it expires, signed with the service account's key (GOOG4-RSA-SHA256; nothing is
 * sent). For the same inputs and time the URL is byte-identical to google-cloud-storage's
 * blob.generate_signed_url(version="v4", ...) and passes Google's V4 conformance vectors.
 * ---------------------------------------------------------------------------------------- */
typedef enum {
    FBS_URL_STYLE_PATH = 0,                 /* <endpoint>/<bucket>/<object> */
    FBS_URL_STYLE_VIRTUAL_HOSTED = 1,       /* <scheme>://<bucket>.<endpoint host>/<object> */
    FBS_URL_STYLE_BUCKET_BOUND_HOSTNAME = 2 /* <scheme>://<hostname>/<object>; hostname = endpoint
                                             * (a bare host takes https, or a URL) */
} fbs_url_style;

/* Signs a URL for `method` ("GET", "HEAD", "PUT", "DELETE", or "POST" with the header
 * "x-goog-resumable: start" for a resumable upload's start) on `object` of `bucket` (object
 * NULL: the bucket itself, to list it).
 *   expires_seconds  how long the URL works: 1 to 604800 (7 days)
 *   time_ms          the signing time (ms since the epoch, UTC; truncated to seconds), or
 *                    FBS_TIME_ABSENT for now
 *   endpoint         google-cloud-storage's api_access_endpoint: NULL for
 *                    "https://storage.googleapis.com", or e.g. the emulator's
 *                    "http://127.0.0.1:9199"; with FBS_URL_STYLE_BUCKET_BOUND_HOSTNAME, the
 *                    hostname (required)
 *   headers          NULL, or name, value, name, value, ..., NULL: headers the request must
 *                    send with these values (signed; Host is added from the endpoint)
 *   query_params     NULL, or name, value, ..., NULL: query parameters signed into the URL
 *                    (response-content-disposition, generation, ...)
 * Release *out_url with fbs_string_free().
 * Errors: FBS_ERR_INVALID_ARGUMENT (another method, expiration out of range, empty bucket, an
 * endpoint that is not an http(s) URL, an odd-length list, a control character). */
int fbs_service_account_sign_url(const fbs_service_account *account, const char *method, const char *bucket,
                                 const char *object, int64_t expires_seconds, int64_t time_ms,
                                 const char *endpoint, int url_style, const char *const *headers,
                                 const char *const *query_params, char **out_url);

/* ------------------------------------------------------------------------------------------
 * Download tokens: the capability in "…/o/<object>?alt=media&token=<token>" URLs. Any reader
 * sees them (fbs_metadata_download_token_count/_at); creating and revoking them
 * takes admin access, through the Firebase API's create_token and delete_token (as the
 * Firebase console does).
 * ---------------------------------------------------------------------------------------- */

/* The object's download tokens, as the Firebase API lists them: how many, and the one at
 * `index` (NULL past the end), lent until the metadata handle is released. */
size_t fbs_metadata_download_token_count(const fbs_metadata *m);
const char *fbs_metadata_download_token_at(const fbs_metadata *m, size_t index);

/* Adds a download token to the object; the new token goes to *out_token (release it with
 * fbs_string_free()). Errors: FBS_ERR_UNAUTHORIZED (not admin), FBS_ERR_OBJECT_NOT_FOUND. */
int fbs_reference_create_download_token(const fbs_reference *r, char **out_token);
int fbs_reference_create_download_token_async(const fbs_reference *r, fbs_string_callback cb, void *user_data);

/* Removes `token` from the object's tokens: URLs with it stop working. The server replaces the
 * last token with a new one. The metadata after the change goes to *out_metadata when it is
 * not NULL (release it with fbs_metadata_free()).
 * Errors: FBS_ERR_UNAUTHORIZED (not admin), FBS_ERR_OBJECT_NOT_FOUND. */
int fbs_reference_revoke_download_token(const fbs_reference *r, const char *token, fbs_metadata **out_metadata);
int fbs_reference_revoke_download_token_async(const fbs_reference *r, const char *token,
                                              fbs_metadata_callback cb, void *user_data);

/* The download URL that `token` opens, built without a request (fbs_reference_download_url()
 * fetches the object's first token). Release *out_url with fbs_string_free().
 * Errors: FBS_ERR_PATH (the bucket root), FBS_ERR_INVALID_ARGUMENT (NULL or empty token). */
int fbs_reference_download_url_for_token(const fbs_reference *r, const char *token, char **out_url);


/* ------------------------------------------------------------------------------------------
 * The GCS JSON API (/storage/v1; storage.googleapis.com in production, the emulator itself
 * otherwise), which admin access opens: listings whose items carry their metadata, and
 * server-side copies.
 * ---------------------------------------------------------------------------------------- */

/* As fbs_reference_list() (list.h), with each item's metadata: size, updated, content type,
 * MD5, generation, … in one request per page instead of one per object. Read it with
 * fbs_list_result_item_metadata().
 * Errors: FBS_ERR_INVALID_ARGUMENT (max_results out of range), FBS_ERR_UNAUTHENTICATED (no
 * admin credentials, in production). */
int fbs_reference_list_with_metadata(const fbs_reference *r, int64_t max_results, const char *page_token,
                                     fbs_list_result **out);

/* The metadata of item `index` of a result of fbs_reference_list_with_metadata(), borrowed from
 * the result; NULL past the end and for results of fbs_reference_list(). */
const fbs_metadata *fbs_list_result_item_metadata(const fbs_list_result *lr, size_t index);

/* Copies source to destination on the server (GCS rewriteTo, repeated with its rewriteToken
 * until done, so large objects take several calls): no object bytes go through the client.
 * destination may be in another bucket of the same storage service. The new object's metadata
 * goes to *out_metadata when it is not NULL (release it with fbs_metadata_free()). A move is
 * this copy, then fbs_reference_delete() of the source.
 * Errors: FBS_ERR_OBJECT_NOT_FOUND (source), FBS_ERR_PATH (a bucket root). */
int fbs_reference_copy_to(const fbs_reference *source, const fbs_reference *destination, fbs_metadata **out_metadata);
int fbs_reference_list_with_metadata_async(const fbs_reference *r, int64_t max_results, const char *page_token,
                                           fbs_list_callback cb, void *user_data);
int fbs_reference_copy_to_async(const fbs_reference *source, const fbs_reference *destination,
                                fbs_metadata_callback cb, void *user_data);

#ifdef __cplusplus
}
#endif

#endif
