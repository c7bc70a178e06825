/* fbstorage/auth.h — Firebase Auth: signing in as a user whose ID token storages send
 * Part of fbstorage.h (include that one); the conventions stated there hold here. */
#ifndef FBSTORAGE_AUTH_H
#define FBSTORAGE_AUTH_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------
 * Auth — one per Firebase app (API key, project id), usable by any number of storages.
 *
 * It signs in through Firebase Auth's REST API (Identity Toolkit v1 and Secure Token) and
 * keeps the user's ID token fresh: refreshed through Secure Token when it has less than
 * min(5 minutes, a twelfth of its lifetime) left (5 minutes for the usual 1-hour tokens, as
 * the Apple SDK), and once when a storage request gets 401. Concurrent requests share one
 * refresh; a refresh never stalls transfers that have a fresh token.
 *
 * Endpoints: production (https://identitytoolkit.googleapis.com/v1/accounts:…?key= and
 * https://securetoken.googleapis.com/v1/token?key=) unless FIREBASE_AUTH_EMULATOR_HOST=host:port
 * is set when the auth is created, or fbs_auth_use_emulator() is called: then
 * http://host:port/identitytoolkit.googleapis.com/v1/… as the Firebase SDKs do.
 *
 * Threads: each auth owns a transfer thread and a callback thread; listeners and the
 * completions of _async calls run on its callback thread, one at a time, in order.
 *
 * Errors of the sign-in calls: the Identity Toolkit and Secure Token error codes map to the
 * FBS_ERR_AUTH_* codes (fbstorage/common.h); FBS_ERR_INVALID_ARGUMENT for NULL, empty or
 * invalid UTF-8 arguments (at once, nothing sent); FBS_ERR_RETRY_LIMIT_EXCEEDED when the
 * service cannot be reached before the operation deadline (120 s; 2 s for a loopback address
 * where nothing listens). Passwords, ID tokens and refresh tokens never appear in log lines
 * or error messages. A failed sign-in keeps the current user.
 * ---------------------------------------------------------------------------------------- */
typedef struct fbs_auth fbs_auth;
/* An immutable snapshot of a signed-in user: profile and tokens at one moment. */
typedef struct fbs_user fbs_user;

/* A sign-in's completion: on success user is the new current user (borrowed for the call). */
typedef void (*fbs_user_callback)(int status, const fbs_user *user, void *user_data);
/* Auth-state and ID-token listeners: user is the current user, or NULL when signed out
 * (borrowed for the call). */
typedef void (*fbs_auth_listener)(const fbs_user *user, void *user_data);

/* Creates an auth for the app with this Web API key and project id (project_id may be NULL:
 * the tokens' project is then learnt from the first sign-in).
 * Ownership: *out is the caller's; release it with fbs_auth_free().
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL or empty api_key; a malformed
 * FIREBASE_AUTH_EMULATOR_HOST). */
int fbs_auth_new(const char *api_key, const char *project_id, fbs_auth **out);

/* Releases the handle. Storages that use this auth keep it alive until they are freed or
 * switch away from it; once nothing uses it, its threads stop after pending callbacks ran.
 * No listener of it runs after this call returns, unless a storage still uses it. */
void fbs_auth_free(fbs_auth *auth);

/* Sends Auth requests to an Auth emulator at http://host:port (host and port checked as
 * fbs_storage_use_emulator()). */
int fbs_auth_use_emulator(fbs_auth *auth, const char *host, int port);

/* Keeps the signed-in user in `path`: its refresh token and profile are written atomically
 * (a temporary file renamed over it), mode 0600, on every sign-in and token refresh, and the
 * file is removed on sign-out. If the file exists now, its user becomes the current user at
 * once (its ID token is fetched on first use). NULL stops persisting (the file is left).
 * Errors: FBS_ERR_INVALID_ARGUMENT (unreadable or malformed file, or a folder that does not exist
 * or is not writable: the message names it). */
int fbs_auth_set_persistence_file(fbs_auth *auth, const char *path);

/* Keeps the signed-in user between runs where a desktop program keeps its user's settings, as
 * the SDKs keep it in the system's keychain: fbs_auth_set_persistence_file() on
 * $XDG_CONFIG_HOME/<program>/<app_name>-<hash>.json (~/.config without an absolute
 * XDG_CONFIG_HOME; missing folders are made with mode 0700). `program` is one path component
 * naming the program (the C++ SDK layer uses "fbstorage-cpp", the Swift products
 * "fbstorage-swift"); `app_name` tells apart the apps of one program (any byte but ASCII letters,
 * digits, '.', '_' and '-' becomes '_'); <hash> is the API key's FNV-1a (64 bits, 16 hex digits),
 * which keeps same-named apps of different projects apart without writing the key into a name.
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL or empty program or app_name, a program with '/',
 * neither XDG_CONFIG_HOME nor HOME absolute, a folder that cannot be made, or the file's errors
 * as fbs_auth_set_persistence_file(): the message names it). */
int fbs_auth_set_persistence_for_app(fbs_auth *auth, const char *program, const char *app_name);

/* The sign-in flows. Each makes the signed-in user the current user, notifies listeners, and
 * on success stores an owned snapshot in *out_user when out_user is not NULL (release it with
 * fbs_user_free()). The _async forms return at once; cb runs once on the callback thread. */
int fbs_auth_sign_in_anonymously(fbs_auth *auth, fbs_user **out_user);
int fbs_auth_sign_in_anonymously_async(fbs_auth *auth, fbs_user_callback cb, void *user_data);

/* Creates an email/password account and signs in as it.
 * Errors: FBS_ERR_AUTH_EMAIL_ALREADY_IN_USE, FBS_ERR_AUTH_WEAK_PASSWORD, FBS_ERR_AUTH_INVALID_EMAIL. */
int fbs_auth_create_user(fbs_auth *auth, const char *email, const char *password, fbs_user **out_user);
int fbs_auth_create_user_async(fbs_auth *auth, const char *email, const char *password,
                               fbs_user_callback cb, void *user_data);

/* Errors: FBS_ERR_AUTH_WRONG_PASSWORD, FBS_ERR_AUTH_USER_NOT_FOUND, FBS_ERR_AUTH_USER_DISABLED. */
int fbs_auth_sign_in_with_email(fbs_auth *auth, const char *email, const char *password, fbs_user **out_user);
int fbs_auth_sign_in_with_email_async(fbs_auth *auth, const char *email, const char *password,
                                      fbs_user_callback cb, void *user_data);

/* A custom token minted by a backend (firebase-admin's create_custom_token).
 * Errors: FBS_ERR_AUTH_INVALID_CUSTOM_TOKEN. */
int fbs_auth_sign_in_with_custom_token(fbs_auth *auth, const char *token, fbs_user **out_user);
int fbs_auth_sign_in_with_custom_token_async(fbs_auth *auth, const char *token,
                                             fbs_user_callback cb, void *user_data);

/* Restores a session from a refresh token saved earlier (fbs_user_refresh_token()), e.g. by
 * another process. Errors: FBS_ERR_AUTH_INVALID_REFRESH_TOKEN, FBS_ERR_AUTH_USER_TOKEN_EXPIRED
 * (revoked), FBS_ERR_AUTH_USER_DISABLED, FBS_ERR_AUTH_USER_NOT_FOUND. */
int fbs_auth_sign_in_with_refresh_token(fbs_auth *auth, const char *refresh_token, fbs_user **out_user);
int fbs_auth_sign_in_with_refresh_token_async(fbs_auth *auth, const char *refresh_token,
                                              fbs_user_callback cb, void *user_data);

/* Forgets the current user (no request is sent) and notifies listeners. FBS_OK when already
 * signed out. */
int fbs_auth_sign_out(fbs_auth *auth);

/* Deletes the current user's account, then signs out. Errors: FBS_ERR_AUTH_NO_USER,
 * FBS_ERR_AUTH_REQUIRES_RECENT_LOGIN. */
int fbs_auth_delete_user(fbs_auth *auth);
int fbs_auth_delete_user_async(fbs_auth *auth, fbs_completion_callback cb, void *user_data);

/* Changes the current user's display name and photo URL (Identity Toolkit accounts:update), as
 * the SDKs' UpdateUserProfile: NULL leaves a field as it is, "" deletes it, any other value sets
 * it. The user stays signed in (with the new tokens the answer may bring) and ID-token listeners
 * are notified. On success stores an owned snapshot of the updated user in *out_user when
 * out_user is not NULL (fbs_user_free()).
 * Errors: FBS_ERR_AUTH_NO_USER (also when the user signed out or changed meanwhile);
 * FBS_ERR_INVALID_ARGUMENT (invalid UTF-8 or a control character); the Auth codes of a refused
 * session (FBS_ERR_AUTH_USER_TOKEN_EXPIRED, FBS_ERR_AUTH_INVALID_USER_TOKEN, FBS_ERR_AUTH_USER_DISABLED,
 * ...), which also sign the user out. */
int fbs_auth_update_profile(fbs_auth *auth, const char *display_name, const char *photo_url, fbs_user **out_user);
int fbs_auth_update_profile_async(fbs_auth *auth, const char *display_name, const char *photo_url,
                                  fbs_user_callback cb, void *user_data);

/* ------------------------------------------------------------------------------------------
 * Credentials and the account lifecycle (the SDKs' AuthCredential, linkWithCredential, …).
 * ---------------------------------------------------------------------------------------- */

/* What a user proves who they are with: an email and password, or an identity provider's
 * token. Immutable; usable from any thread, by any number of calls at once. Credentials: its
 * secrets never appear in log lines or error messages. */
typedef struct fbs_credential fbs_credential;

/* An email and password credential (EmailAuthProvider.credential).
 * Ownership: *out is the caller's; release it with fbs_credential_free().
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL or empty email or password, invalid UTF-8). */
int fbs_credential_email(const char *email, const char *password, fbs_credential **out);

/* An identity provider's credential (GoogleAuthProvider / OAuthProvider.credential):
 * provider_id ("google.com", "github.com", …) with its ID token, its access token, or both
 * (either may be NULL, not both). Sent to Identity Toolkit's signInWithIdp.
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL, empty or "password" provider_id; no token; an empty
 * token). */
int fbs_credential_idp(const char *provider_id, const char *id_token, const char *access_token,
                       fbs_credential **out);

/* The full form of an identity provider's credential (OAuthProvider.credential with a raw
 * nonce, TwitterAuthProvider.credential): as fbs_credential_idp, plus raw_nonce, the unhashed
 * nonce whose SHA-256 the ID token carries (Sign in with Apple), and secret, an OAuth 1.0 token
 * secret sent with the access token (Twitter: access_token is its token). Each may be NULL;
 * sent to signInWithIdp as postBody's nonce and oauth_token_secret.
 * Ownership: *out is the caller's; release it with fbs_credential_free().
 * Errors: FBS_ERR_INVALID_ARGUMENT (as fbs_credential_idp; an empty raw_nonce or secret; a
 * raw_nonce without an id_token; a secret without an access_token). */
int fbs_credential_oauth(const char *provider_id, const char *id_token, const char *raw_nonce,
                         const char *access_token, const char *secret, fbs_credential **out);

/* Releases a credential; NULL is a no-op. Calls that were given it do not need it any more
 * once they returned (the _async forms copy it). */
void fbs_credential_free(fbs_credential *credential);

/* The calls below that answer a user work as the sign-in flows: on success an owned snapshot
 * of the (updated) current user in *out_user when out_user is not NULL (fbs_user_free()); the
 * _async forms return at once and cb runs once on the callback thread, with the user lent for
 * the call. Calls on the current user (all but sign-in, password reset and action codes) fail
 * with FBS_ERR_AUTH_NO_USER when nobody is signed in, or when the user signed out or changed
 * before the answer came; their new tokens replace the user's and ID-token listeners are
 * notified (the uid stays: state listeners are not). FBS_ERR_AUTH_REQUIRES_RECENT_LOGIN asks
 * for fbs_auth_reauthenticate() first. */

/* Signs in with a credential (a new account the first time an identity provider's user comes).
 * Errors: FBS_ERR_AUTH_WRONG_PASSWORD, FBS_ERR_AUTH_USER_NOT_FOUND, FBS_ERR_AUTH_USER_DISABLED,
 * FBS_ERR_AUTH_INVALID_CREDENTIAL (a malformed or refused provider token),
 * FBS_ERR_AUTH_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL (the email's account signs in another
 * way: sign in to it, then link). */
int fbs_auth_sign_in_with_credential(fbs_auth *auth, const fbs_credential *credential, fbs_user **out_user);
int fbs_auth_sign_in_with_credential_async(fbs_auth *auth, const fbs_credential *credential,
                                           fbs_user_callback cb, void *user_data);

/* Adds the credential's sign-in method to the current user, who keeps the uid, its files and
 * its rules (an anonymous user becomes permanent).
 * Errors: FBS_ERR_AUTH_PROVIDER_ALREADY_LINKED (the user has this provider already, checked
 * before sending), FBS_ERR_AUTH_CREDENTIAL_ALREADY_IN_USE (the identity is another account's),
 * FBS_ERR_AUTH_EMAIL_ALREADY_IN_USE, FBS_ERR_AUTH_WEAK_PASSWORD, FBS_ERR_AUTH_INVALID_CREDENTIAL. */
int fbs_auth_link_with_credential(fbs_auth *auth, const fbs_credential *credential, fbs_user **out_user);
int fbs_auth_link_with_credential_async(fbs_auth *auth, const fbs_credential *credential,
                                        fbs_user_callback cb, void *user_data);

/* Signs the current user in again: a recent sign-in for the calls that need one.
 * Errors: FBS_ERR_AUTH_USER_MISMATCH (the credential is another user's: the current user stays),
 * and fbs_auth_sign_in_with_credential()'s. */
int fbs_auth_reauthenticate(fbs_auth *auth, const fbs_credential *credential, fbs_user **out_user);
int fbs_auth_reauthenticate_async(fbs_auth *auth, const fbs_credential *credential,
                                  fbs_user_callback cb, void *user_data);

/* Removes a sign-in method ("password", "google.com", …) from the current user. */
int fbs_auth_unlink(fbs_auth *auth, const char *provider_id, fbs_user **out_user);
int fbs_auth_unlink_async(fbs_auth *auth, const char *provider_id, fbs_user_callback cb, void *user_data);

/* Change the current user's email (at once: fbs_auth_verify_before_update_email() asks the
 * new address first) or password. Errors: FBS_ERR_AUTH_REQUIRES_RECENT_LOGIN,
 * FBS_ERR_AUTH_EMAIL_ALREADY_IN_USE, FBS_ERR_AUTH_INVALID_EMAIL, FBS_ERR_AUTH_WEAK_PASSWORD. */
int fbs_auth_update_email(fbs_auth *auth, const char *email, fbs_user **out_user);
int fbs_auth_update_email_async(fbs_auth *auth, const char *email, fbs_user_callback cb, void *user_data);
int fbs_auth_update_password(fbs_auth *auth, const char *password, fbs_user **out_user);
int fbs_auth_update_password_async(fbs_auth *auth, const char *password, fbs_user_callback cb, void *user_data);

/* Refreshes the current user's ID token and reads the account (accounts:lookup): the profile
 * and fbs_user_is_email_verified() as the server has them now, the token's claims too (so
 * storage rules on request.auth.token.email_verified see a verification). */
int fbs_auth_reload(fbs_auth *auth, fbs_user **out_user);
int fbs_auth_reload_async(fbs_auth *auth, fbs_user_callback cb, void *user_data);

/* Email actions. Each mails a code (an Auth emulator lists it at
 * GET /emulator/v1/projects/{project}/oobCodes) that a link in the mail carries; the code is
 * applied with fbs_auth_apply_action_code() or fbs_auth_confirm_password_reset(). Status only;
 * the _async forms report it to cb on the callback thread. */
/* A code verifying the current user's email. Errors: FBS_ERR_AUTH_NO_USER;
 * FBS_ERR_INVALID_ARGUMENT (the user has no email). */
int fbs_auth_send_email_verification(fbs_auth *auth);
int fbs_auth_send_email_verification_async(fbs_auth *auth, fbs_completion_callback cb, void *user_data);
/* A code sent to `email` that, applied, makes it the current user's email. */
int fbs_auth_verify_before_update_email(fbs_auth *auth, const char *email);
int fbs_auth_verify_before_update_email_async(fbs_auth *auth, const char *email,
                                              fbs_completion_callback cb, void *user_data);
/* A password-reset code for the account of `email` (no user needs to be signed in).
 * Errors: FBS_ERR_AUTH_USER_NOT_FOUND, FBS_ERR_AUTH_INVALID_EMAIL. */
int fbs_auth_send_password_reset_email(fbs_auth *auth, const char *email);
int fbs_auth_send_password_reset_email_async(fbs_auth *auth, const char *email,
                                             fbs_completion_callback cb, void *user_data);
/* The email a password-reset code is for, in *out_email (release with fbs_string_free()); the
 * code stays usable. Errors: FBS_ERR_AUTH_INVALID_ACTION_CODE (unknown, used, or another kind of
 * code), FBS_ERR_AUTH_EXPIRED_ACTION_CODE. */
int fbs_auth_verify_password_reset_code(fbs_auth *auth, const char *code, char **out_email);
int fbs_auth_verify_password_reset_code_async(fbs_auth *auth, const char *code,
                                              fbs_string_callback cb, void *user_data);
/* Sets the password of a password-reset code's account and uses the code up (the account's
 * sessions end). Errors: as fbs_auth_verify_password_reset_code(), FBS_ERR_AUTH_WEAK_PASSWORD. */
int fbs_auth_confirm_password_reset(fbs_auth *auth, const char *code, const char *new_password);
int fbs_auth_confirm_password_reset_async(fbs_auth *auth, const char *code, const char *new_password,
                                          fbs_completion_callback cb, void *user_data);
/* Applies an email verification or email change code. The current user shows it after
 * fbs_auth_reload() (or the next token refresh).
 * Errors: FBS_ERR_AUTH_INVALID_ACTION_CODE, FBS_ERR_AUTH_EXPIRED_ACTION_CODE. */
int fbs_auth_apply_action_code(fbs_auth *auth, const char *code);
int fbs_auth_apply_action_code_async(fbs_auth *auth, const char *code, fbs_completion_callback cb, void *user_data);
/* What an action code is for; the code stays usable (the SDKs' checkActionCode). On success
 * *out_operation is the operation ("PASSWORD_RESET", "VERIFY_EMAIL", "EMAIL_SIGNIN",
 * "VERIFY_AND_CHANGE_EMAIL", "RECOVER_EMAIL", …), *out_email the address the code was sent to
 * and *out_new_email the address an email change code makes the account's; each NULL when the
 * answer lacks it. out_email and out_new_email may be NULL (not wanted).
 * Ownership: the strings are the caller's; release each with fbs_string_free().
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL or empty code, NULL out_operation),
 * FBS_ERR_AUTH_INVALID_ACTION_CODE (unknown or used code), FBS_ERR_AUTH_EXPIRED_ACTION_CODE. */
int fbs_auth_check_action_code(fbs_auth *auth, const char *code, char **out_operation, char **out_email,
                               char **out_new_email);
/* fbs_auth_check_action_code()'s completion: the strings are borrowed for the call (NULL on
 * failure, and when absent). */
typedef void (*fbs_action_code_callback)(int status, const char *operation, const char *email,
                                         const char *new_email, void *user_data);
int fbs_auth_check_action_code_async(fbs_auth *auth, const char *code, fbs_action_code_callback cb, void *user_data);

/* Where the link in an Auth email leads and which app may open it (the SDKs'
 * ActionCodeSettings): the continue URL (absolute; its domain authorized for the project) and
 * whether the app completes the action itself (handle_code_in_app; required for sign-in links).
 * Setters take NULL to clear. Ownership: *out is the caller's; release it with
 * fbs_action_code_settings_free(). Errors: FBS_ERR_INVALID_ARGUMENT (NULL or empty url, an empty
 * value or one with a control character: the settings stay as they were). */
typedef struct fbs_action_code_settings fbs_action_code_settings;
int fbs_action_code_settings_new(const char *url, int handle_code_in_app, fbs_action_code_settings **out);
int fbs_action_code_settings_set_ios_bundle_id(fbs_action_code_settings *settings, const char *bundle_id);
int fbs_action_code_settings_set_android_package_name(fbs_action_code_settings *settings, const char *package_name,
                                                      int install_app, const char *minimum_version);
int fbs_action_code_settings_set_link_domain(fbs_action_code_settings *settings, const char *domain);
void fbs_action_code_settings_free(fbs_action_code_settings *settings);

/* Email-link sign-in. fbs_auth_send_sign_in_link_to_email() mails `email` a link (an Auth
 * emulator lists it at GET /emulator/v1/projects/{project}/oobCodes) that leads to the settings'
 * URL with a code; the app signs in with the address and that link (a new account the first
 * time, its email verified). Errors: FBS_ERR_INVALID_ARGUMENT (settings without
 * handle_code_in_app, a continue URL the server refuses, a link that is not a sign-in link),
 * FBS_ERR_AUTH_INVALID_EMAIL (also: another address than the link's),
 * FBS_ERR_AUTH_INVALID_ACTION_CODE (used or unknown code), FBS_ERR_AUTH_EXPIRED_ACTION_CODE,
 * FBS_ERR_AUTH_USER_DISABLED. */
int fbs_auth_send_sign_in_link_to_email(fbs_auth *auth, const char *email, const fbs_action_code_settings *settings);
int fbs_auth_send_sign_in_link_to_email_async(fbs_auth *auth, const char *email, const fbs_action_code_settings *settings,
                                              fbs_completion_callback cb, void *user_data);
/* 1 when `link` is an email sign-in link (mode=signIn with an oobCode, also inside a Dynamic
 * Link's link or deep_link_id parameter), 0 otherwise (NULL included); -1 on a bad handle or a
 * link that is not UTF-8 (fbs_last_error_message() says which). */
int fbs_auth_is_sign_in_with_email_link(fbs_auth *auth, const char *link);
int fbs_auth_sign_in_with_email_link(fbs_auth *auth, const char *email, const char *link, fbs_user **out_user);
int fbs_auth_sign_in_with_email_link_async(fbs_auth *auth, const char *email, const char *link,
                                           fbs_user_callback cb, void *user_data);

/* How `email` can sign in (Identity Toolkit's createAuthUri, the SDKs' deprecated
 * fetchSignInMethodsForEmail): in *out_methods the methods joined by ',' ("password",
 * "emailLink" and the identity providers linked to its account, e.g. "password,google.com"), ""
 * for none: also when no account has the email, and always when the project protects against
 * email enumeration (the default for new projects). No user needs to be signed in.
 * Ownership: *out_methods is the caller's; release it with fbs_string_free().
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL or empty email, NULL out_methods),
 * FBS_ERR_AUTH_INVALID_EMAIL. The _async form's callback gets the string borrowed for the call. */
int fbs_auth_fetch_sign_in_methods(fbs_auth *auth, const char *email, char **out_methods);
int fbs_auth_fetch_sign_in_methods_async(fbs_auth *auth, const char *email, fbs_string_callback cb, void *user_data);

/* An owned snapshot of the current user in *out, or *out = NULL when signed out (FBS_OK). */
int fbs_auth_current_user(fbs_auth *auth, fbs_user **out);

/* The current user's ID token, refreshed first when it is about to expire or force_refresh
 * is non-zero. Release *out_token with fbs_string_free().
 * Errors: FBS_ERR_AUTH_NO_USER, and the refresh's errors. */
int fbs_auth_get_id_token(fbs_auth *auth, int force_refresh, char **out_token);
int fbs_auth_get_id_token_async(fbs_auth *auth, int force_refresh, fbs_string_callback cb, void *user_data);

/* Listeners. A state listener runs on sign-in, sign-out, a restored session and a change of
 * user; an ID-token listener also on every new ID token. Each runs once at registration with
 * the current user (as the Apple SDK's do). Remove with fbs_auth_remove_listener(); after it
 * returns (off the callback thread) the listener does not run again.
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL cb; unknown handle on removal). */
int fbs_auth_add_state_listener(fbs_auth *auth, fbs_auth_listener cb, void *user_data,
                                fbs_listener_handle *out_handle);
int fbs_auth_add_id_token_listener(fbs_auth *auth, fbs_auth_listener cb, void *user_data,
                                   fbs_listener_handle *out_handle);
int fbs_auth_remove_listener(fbs_auth *auth, fbs_listener_handle handle);

/* User snapshots. Strings are borrowed from the snapshot; NULL when absent or on a bad handle. */
const char *fbs_user_uid(const fbs_user *user);
const char *fbs_user_email(const fbs_user *user);
const char *fbs_user_display_name(const fbs_user *user);
const char *fbs_user_photo_url(const fbs_user *user);
/* 1 when the user's email is verified (as of the ID token, or the last fbs_auth_reload() or
 * account change), 0 otherwise (-1 on a bad handle). */
int fbs_user_is_email_verified(const fbs_user *user);
/* 1 for an anonymous user, 0 otherwise (-1 on a bad handle). */
int fbs_user_is_anonymous(const fbs_user *user);
/* The ID token's firebase.sign_in_provider: "anonymous", "password", "custom", … */
const char *fbs_user_sign_in_provider(const fbs_user *user);
/* What the sign-in that answered this snapshot said beyond the user (the SDKs'
 * AdditionalUserInfo); only the user a sign-in, an identity provider's link or a
 * reauthentication answers (out_user, the _async callback's) has it, as the SDKs' answers do;
 * never a password's link, fbs_auth_current_user()'s or a listener's.
 * fbs_user_is_new_user: 1 when the sign-in made the account, 0 when it existed, -1 when the
 * snapshot is not such an answer (or on a bad handle).
 * fbs_user_additional_provider_id: the provider signed in with; fbs_user_additional_profile_json:
 * the identity provider's profile of the user, a JSON object as Identity Toolkit relays it
 * (rawUserInfo); fbs_user_additional_username: the user's name at the provider (screenName).
 * Each NULL when absent; borrowed until the snapshot is released. */
int fbs_user_is_new_user(const fbs_user *user);
const char *fbs_user_additional_provider_id(const fbs_user *user);
const char *fbs_user_additional_profile_json(const fbs_user *user);
const char *fbs_user_additional_username(const fbs_user *user);
/* The ID token and refresh token at the snapshot's moment: credentials, never log them. */
const char *fbs_user_id_token(const fbs_user *user);
const char *fbs_user_refresh_token(const fbs_user *user);
/* The ID token's payload (all claims, custom claims included) as a JSON object. */
const char *fbs_user_claims_json(const fbs_user *user);
/* The ID token's exp, iat and auth_time claims, in milliseconds since the Unix epoch;
 * FBS_TIME_ABSENT when absent or on a bad handle. */
int64_t fbs_user_token_expiration(const fbs_user *user);
int64_t fbs_user_token_issued_at(const fbs_user *user);
int64_t fbs_user_auth_time(const fbs_user *user);
/* The account's sign-in methods (the SDKs' providerData) and dates, as Identity Toolkit's
 * accounts:lookup reports them: as of the sign-in (every sign-in reads the account before the
 * user becomes current, as the SDKs do), the last fbs_auth_reload() or account change (linking,
 * unlinking, profile, email or password update); a persisted session keeps them. Absent (no
 * providers, FBS_TIME_ABSENT) only for a session restored from a refresh token alone. */
/* The number of sign-in methods (0 on a bad handle). */
size_t fbs_user_provider_count(const fbs_user *user);
/* The sign-in method at `index` (< fbs_user_provider_count()): its provider id ("password",
 * "google.com", …), the user's id at that provider (the email for "password"), and the email,
 * display name, photo URL and phone number it gave. Borrowed from the snapshot; NULL when
 * absent, for an index out of range, or on a bad handle. */
const char *fbs_user_provider_id(const fbs_user *user, size_t index);
const char *fbs_user_provider_uid(const fbs_user *user, size_t index);
const char *fbs_user_provider_email(const fbs_user *user, size_t index);
const char *fbs_user_provider_display_name(const fbs_user *user, size_t index);
const char *fbs_user_provider_photo_url(const fbs_user *user, size_t index);
const char *fbs_user_provider_phone_number(const fbs_user *user, size_t index);
/* When the account was created and last signed in (the SDKs' UserMetadata), in milliseconds
 * since the Unix epoch; FBS_TIME_ABSENT when not known yet (see above) or on a bad handle. */
int64_t fbs_user_creation_time(const fbs_user *user);
int64_t fbs_user_last_sign_in_time(const fbs_user *user);
/* Releases a snapshot from a sign-in call or fbs_auth_current_user(). Snapshots passed to
 * callbacks are not the caller's: freeing one fails with FBS_ERR_INVALID_ARGUMENT. */
void fbs_user_free(fbs_user *user);

/* ------------------------------------------------------------------------------------------
 * What a storage authenticates with.
 * ---------------------------------------------------------------------------------------- */

/* From now on every request of the storage, tasks already running included, carries the
 * current user of `auth` ("Authorization: Firebase <ID token>"; none when signed out). A
 * request that gets 401 makes the auth refresh once; a user disabled, deleted or revoked
 * meanwhile fails that request with the refresh's error (FBS_ERR_AUTH_USER_DISABLED, …).
 * Replaces a fixed token or a provider; auth = NULL detaches. The storage keeps auth alive. */
int fbs_storage_use_auth(fbs_storage *storage, fbs_auth *auth);

/* An asynchronous token provider, for callers whose token needs a network call of their own.
 * It runs on the storage's callback thread (not the transfer thread: other transfers go on)
 * with force_refresh = 1 after a 401, and answers later, from any thread, exactly once, with
 * fbs_token_request_complete() (token may be NULL: no token) or fbs_token_request_fail(). The
 * request handle is the library's. A request the storage no longer needs (cancelled, storage
 * freed) still accepts its answer. Replaces a fixed token, a provider or an auth;
 * fn = NULL removes it. */
typedef struct fbs_token_request fbs_token_request;
typedef void (*fbs_token_provider_async)(int force_refresh, fbs_token_request *request, void *user_data);
int fbs_storage_set_auth_token_provider_async(fbs_storage *storage, fbs_token_provider_async fn,
                                              void *user_data);
/* As fbs_storage_set_auth_token_provider_async(), with a destroy callback for user_data (may be
 * NULL; see fbs_destroy_notify). It is called once, when the provider has been dropped
 * (replaced by any fbs_storage_set_auth_token* or fbs_storage_use_auth call, removed with fn
 * NULL, or the storage freed), no request in flight still uses it, and every request it was
 * given has been answered: an answer given later, from another thread, may still use user_data.
 * It runs with no library lock held, after the provider's last call returned. With fn NULL, or
 * when the call fails, destroy is called at once. */
int fbs_storage_set_auth_token_provider_async_full(fbs_storage *storage, fbs_token_provider_async fn,
                                                   void *user_data, fbs_destroy_notify destroy);
/* Errors: FBS_ERR_INVALID_ARGUMENT (a request already answered, invalid UTF-8 or a control
 * character in token). The waiting request then fails with FBS_ERR_INVALID_ARGUMENT too. */
int fbs_token_request_complete(fbs_token_request *request, const char *token);
/* Fails the waiting request with FBS_ERR_UNAUTHENTICATED and `message` (may be NULL). */
int fbs_token_request_fail(fbs_token_request *request, const char *message);

#ifdef __cplusplus
}
#endif
#endif /* FBSTORAGE_AUTH_H */
