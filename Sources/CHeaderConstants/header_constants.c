/* The header's constants, compiled into the library from include/fbstorage.h itself: the
 * library reports the versions and codes of the header it was built with, by construction.
 * (C, because Swift cannot read a macro's value or stringify a name.) */
#include "CHeaderConstants.h"

#include <string.h>

const char *fbs_version(void) { return FBS_VERSION_STRING; }

int fbs_abi_version(void) { return FBS_ABI_VERSION; }

/* Every named integer constant of the header; each name is spelled once, by the preprocessor.
 * Tests/c/check-header.sh checks that the list holds every constant the header defines. */
#define NAMED(constant) {#constant, (int64_t)(constant)}
static const struct named_constant {
    const char *name;
    int64_t value;
} constants[] = {
    NAMED(FBS_VERSION_MAJOR), NAMED(FBS_VERSION_MINOR), NAMED(FBS_VERSION_PATCH),
    NAMED(FBS_ABI_VERSION), NAMED(FBS_TIME_ABSENT),
    NAMED(FBS_OK),
    NAMED(FBS_ERR_UNKNOWN), NAMED(FBS_ERR_OBJECT_NOT_FOUND), NAMED(FBS_ERR_BUCKET_NOT_FOUND),
    NAMED(FBS_ERR_PROJECT_NOT_FOUND), NAMED(FBS_ERR_QUOTA_EXCEEDED), NAMED(FBS_ERR_UNAUTHENTICATED),
    NAMED(FBS_ERR_UNAUTHORIZED), NAMED(FBS_ERR_RETRY_LIMIT_EXCEEDED),
    NAMED(FBS_ERR_NON_MATCHING_CHECKSUM), NAMED(FBS_ERR_DOWNLOAD_SIZE_EXCEEDED),
    NAMED(FBS_ERR_CANCELLED), NAMED(FBS_ERR_INVALID_ARGUMENT), NAMED(FBS_ERR_BUCKET_MISMATCH),
    NAMED(FBS_ERR_INTERNAL), NAMED(FBS_ERR_PATH), NAMED(FBS_ERR_TIMEOUT), NAMED(FBS_ERR_TLS),
    NAMED(FBS_ERR_RANGE_NOT_SATISFIABLE), NAMED(FBS_ERR_OBJECT_CHANGED), NAMED(FBS_ERR_HOST_NOT_FOUND), NAMED(FBS_SOURCE_NOT_READY),
    NAMED(FBS_ERR_AUTH_INVALID_API_KEY), NAMED(FBS_ERR_AUTH_INVALID_EMAIL), NAMED(FBS_ERR_AUTH_WRONG_PASSWORD),
    NAMED(FBS_ERR_AUTH_USER_NOT_FOUND), NAMED(FBS_ERR_AUTH_EMAIL_ALREADY_IN_USE), NAMED(FBS_ERR_AUTH_WEAK_PASSWORD),
    NAMED(FBS_ERR_AUTH_USER_DISABLED), NAMED(FBS_ERR_AUTH_INVALID_CUSTOM_TOKEN), NAMED(FBS_ERR_AUTH_TOO_MANY_REQUESTS),
    NAMED(FBS_ERR_AUTH_OPERATION_NOT_ALLOWED), NAMED(FBS_ERR_AUTH_USER_TOKEN_EXPIRED),
    NAMED(FBS_ERR_AUTH_INVALID_REFRESH_TOKEN), NAMED(FBS_ERR_AUTH_NO_USER), NAMED(FBS_ERR_AUTH_REQUIRES_RECENT_LOGIN),
    NAMED(FBS_ERR_AUTH_CREDENTIAL_ALREADY_IN_USE),
    NAMED(FBS_ERR_AUTH_PROVIDER_ALREADY_LINKED),
    NAMED(FBS_ERR_AUTH_INVALID_ACTION_CODE),
    NAMED(FBS_ERR_AUTH_EXPIRED_ACTION_CODE),
    NAMED(FBS_ERR_AUTH_INVALID_CREDENTIAL),
    NAMED(FBS_ERR_AUTH_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL),
    NAMED(FBS_ERR_AUTH_USER_MISMATCH),
    NAMED(FBS_URL_STYLE_PATH), NAMED(FBS_URL_STYLE_VIRTUAL_HOSTED), NAMED(FBS_URL_STYLE_BUCKET_BOUND_HOSTNAME),
    NAMED(FBS_ERR_CREDENTIAL_INVALID), NAMED(FBS_ERR_CREDENTIAL_CLOCK_SKEW), NAMED(FBS_ERR_CREDENTIAL_REJECTED),
    NAMED(FBS_LOG_ERROR), NAMED(FBS_LOG_WARNING), NAMED(FBS_LOG_INFO), NAMED(FBS_LOG_DEBUG),
    NAMED(FBS_TASK_STATUS_UNKNOWN), NAMED(FBS_TASK_STATUS_RESUME), NAMED(FBS_TASK_STATUS_PROGRESS),
    NAMED(FBS_TASK_STATUS_PAUSE), NAMED(FBS_TASK_STATUS_SUCCESS), NAMED(FBS_TASK_STATUS_FAILURE),
    NAMED(FBS_CLOSE_CANCEL), NAMED(FBS_CLOSE_KEEP_SESSIONS), NAMED(FBS_CLOSE_FINISH),
};

const char *fbs_constant(size_t index, int64_t *out_value) {
    if (index >= sizeof constants / sizeof constants[0]) return NULL;
    if (out_value) *out_value = constants[index].value;
    return constants[index].name;
}

const char *fbs_error_name(int code) {
    for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++) {
        const struct named_constant *c = &constants[i];
        int is_code = strcmp(c->name, "FBS_OK") == 0 || strncmp(c->name, "FBS_ERR_", 8) == 0;
        if (is_code && c->value == code) return c->name;
    }
    return "FBS_ERR_?";
}
