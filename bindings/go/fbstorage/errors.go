package fbstorage

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
)

// Code is a failure's code: the Firebase StorageErrorCode raw values, CodeTimeout, and the
// Firebase Auth codes (fbs_error_code in fbstorage/common.h). A Code is an error, so the
// Err* values below work with errors.Is.
type Code int

// The codes of fbstorage/common.h.
const (
	CodeUnknown                                  Code = -13000
	CodeObjectNotFound                           Code = -13010
	CodeBucketNotFound                           Code = -13011
	CodeProjectNotFound                          Code = -13012
	CodeQuotaExceeded                            Code = -13013
	CodeUnauthenticated                          Code = -13020
	CodeUnauthorized                             Code = -13021
	CodeRetryLimitExceeded                       Code = -13030
	CodeNonMatchingChecksum                      Code = -13031
	CodeDownloadSizeExceeded                     Code = -13032
	CodeCancelled                                Code = -13040
	CodeInvalidArgument                          Code = -13050
	CodeBucketMismatch                           Code = -13051
	CodeInternal                                 Code = -13052
	CodePath                                     Code = -13053
	CodeTimeout                                  Code = -13060
	CodeTLS                                      Code = -13061
	CodeRangeNotSatisfiable                      Code = -13062
	CodeObjectChanged                            Code = -13063
	CodeHostNotFound                             Code = -13064
	CodeAuthInvalidAPIKey                        Code = -13100
	CodeAuthInvalidEmail                         Code = -13101
	CodeAuthWrongPassword                        Code = -13102
	CodeAuthUserNotFound                         Code = -13103
	CodeAuthEmailAlreadyInUse                    Code = -13104
	CodeAuthWeakPassword                         Code = -13105
	CodeAuthUserDisabled                         Code = -13106
	CodeAuthInvalidCustomToken                   Code = -13107
	CodeAuthTooManyRequests                      Code = -13108
	CodeAuthOperationNotAllowed                  Code = -13109
	CodeAuthUserTokenExpired                     Code = -13110
	CodeAuthInvalidRefreshToken                  Code = -13111
	CodeAuthNoUser                               Code = -13112
	CodeAuthRequiresRecentLogin                  Code = -13113
	CodeAuthCredentialAlreadyInUse               Code = -13114
	CodeAuthProviderAlreadyLinked                Code = -13115
	CodeAuthInvalidActionCode                    Code = -13116
	CodeAuthExpiredActionCode                    Code = -13117
	CodeAuthInvalidCredential                    Code = -13118
	CodeAuthAccountExistsWithDifferentCredential Code = -13119
	CodeAuthUserMismatch                         Code = -13120
	CodeAuthInvalidUserToken                     Code = -13121
	CodeCredentialInvalid                        Code = -13200
	CodeCredentialClockSkew                      Code = -13201
	CodeCredentialRejected                       Code = -13202
	CodeAppCheckTokenInvalid                     Code = -13300
	CodeAppCheckTokenMissing                     Code = -13301
	CodeAppCheckProviderFailed                   Code = -13302
	CodeAppCheckAttestationFailed                Code = -13303
	CodeAppCheckNoProvider                       Code = -13304
)

// Sentinels for errors.Is.
var (
	ErrUnknown                                  error = CodeUnknown
	ErrObjectNotFound                           error = CodeObjectNotFound
	ErrBucketNotFound                           error = CodeBucketNotFound
	ErrProjectNotFound                          error = CodeProjectNotFound
	ErrQuotaExceeded                            error = CodeQuotaExceeded
	ErrUnauthenticated                          error = CodeUnauthenticated
	ErrUnauthorized                             error = CodeUnauthorized
	ErrRetryLimitExceeded                       error = CodeRetryLimitExceeded
	ErrNonMatchingChecksum                      error = CodeNonMatchingChecksum
	ErrDownloadSizeExceeded                     error = CodeDownloadSizeExceeded
	ErrCancelled                                error = CodeCancelled
	ErrInvalidArgument                          error = CodeInvalidArgument
	ErrBucketMismatch                           error = CodeBucketMismatch
	ErrInternal                                 error = CodeInternal
	ErrPath                                     error = CodePath
	ErrTimeout                                  error = CodeTimeout
	ErrTLS                                      error = CodeTLS
	ErrRangeNotSatisfiable                      error = CodeRangeNotSatisfiable
	ErrObjectChanged                            error = CodeObjectChanged
	ErrHostNotFound                             error = CodeHostNotFound
	ErrAuthInvalidAPIKey                        error = CodeAuthInvalidAPIKey
	ErrAuthInvalidEmail                         error = CodeAuthInvalidEmail
	ErrAuthWrongPassword                        error = CodeAuthWrongPassword
	ErrAuthUserNotFound                         error = CodeAuthUserNotFound
	ErrAuthEmailAlreadyInUse                    error = CodeAuthEmailAlreadyInUse
	ErrAuthWeakPassword                         error = CodeAuthWeakPassword
	ErrAuthUserDisabled                         error = CodeAuthUserDisabled
	ErrAuthInvalidCustomToken                   error = CodeAuthInvalidCustomToken
	ErrAuthTooManyRequests                      error = CodeAuthTooManyRequests
	ErrAuthOperationNotAllowed                  error = CodeAuthOperationNotAllowed
	ErrAuthUserTokenExpired                     error = CodeAuthUserTokenExpired
	ErrAuthInvalidRefreshToken                  error = CodeAuthInvalidRefreshToken
	ErrAuthNoUser                               error = CodeAuthNoUser
	ErrAuthRequiresRecentLogin                  error = CodeAuthRequiresRecentLogin
	ErrAuthCredentialAlreadyInUse               error = CodeAuthCredentialAlreadyInUse
	ErrAuthProviderAlreadyLinked                error = CodeAuthProviderAlreadyLinked
	ErrAuthInvalidActionCode                    error = CodeAuthInvalidActionCode
	ErrAuthExpiredActionCode                    error = CodeAuthExpiredActionCode
	ErrAuthInvalidCredential                    error = CodeAuthInvalidCredential
	ErrAuthAccountExistsWithDifferentCredential error = CodeAuthAccountExistsWithDifferentCredential
	ErrAuthUserMismatch                         error = CodeAuthUserMismatch
	ErrAuthInvalidUserToken                     error = CodeAuthInvalidUserToken
	ErrCredentialInvalid                        error = CodeCredentialInvalid
	ErrCredentialClockSkew                      error = CodeCredentialClockSkew
	ErrCredentialRejected                       error = CodeCredentialRejected
	ErrAppCheckTokenInvalid                     error = CodeAppCheckTokenInvalid
	ErrAppCheckTokenMissing                     error = CodeAppCheckTokenMissing
	ErrAppCheckProviderFailed                   error = CodeAppCheckProviderFailed
	ErrAppCheckAttestationFailed                error = CodeAppCheckAttestationFailed
	ErrAppCheckNoProvider                       error = CodeAppCheckNoProvider
)

// Error is the library's name of the code, e.g. "FBS_ERR_OBJECT_NOT_FOUND".
func (c Code) Error() string {
	return C.GoString(C.fbs_error_name(C.int(c)))
}

// String is the code's name, as Error.
func (c Code) String() string {
	return c.Error()
}

// Error is a failed call or task: its code, the library's message, and the server's answer
// when there was one (tokens redacted by the library).
type Error struct {
	Code           Code
	Message        string
	HTTPStatus     int // 0 without a response
	ServerResponse string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Code.Error(), e.Message)
}

// Unwrap gives the Code, so errors.Is(err, ErrObjectNotFound) holds for a 404.
func (e *Error) Unwrap() error {
	return e.Code
}

// lastError is the calling OS thread's last error, for a call that returned code.
func lastError(code C.int) error {
	return &Error{
		Code:           Code(code),
		Message:        goString(C.fbs_last_error_message()),
		HTTPStatus:     int(C.fbs_last_error_http_status()),
		ServerResponse: goString(C.fbs_last_error_server_response()),
	}
}

// causedError is a failure with a cause from outside the library (a context's end, a failing
// io.Reader): errors.Is matches both, so a task ended by its context is
// errors.Is(err, context.DeadlineExceeded) and errors.Is(err, ErrCancelled) at once, and
// errors.As finds the *Error.
type causedError struct {
	cause error
	err   error
}

func (e *causedError) Error() string {
	return fmt.Sprintf("%v (%v)", e.err, e.cause)
}

func (e *causedError) Unwrap() error {
	return e.err
}

func (e *causedError) Is(target error) bool {
	return errors.Is(e.cause, target)
}

// contextEnded is the error of a call that ctx ended.
func contextEnded(ctx context.Context) error {
	return &causedError{cause: ctx.Err(), err: &Error{Code: CodeCancelled, Message: "The context ended: " + ctx.Err().Error()}}
}
