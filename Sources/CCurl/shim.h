/*
 * CCurl: libcurl for Swift.
 *
 * curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, and Swift does not import
 * C variadic functions. These typed, non-variadic wrappers take one argument type each. They are
 * static inline so they compile into the Swift module that uses them and libfbstorage.so exports
 * no extra symbols.
 */
#ifndef FBSTORAGE_CCURL_SHIM_H
#define FBSTORAGE_CCURL_SHIM_H

#include <curl/curl.h>

/* ---- curl_easy_setopt ---- */

static inline CURLcode ccurl_setopt_long(CURL *h, CURLoption opt, long value) {
    return curl_easy_setopt(h, opt, value);
}
static inline CURLcode ccurl_setopt_off(CURL *h, CURLoption opt, curl_off_t value) {
    return curl_easy_setopt(h, opt, value);
}
/* libcurl copies string arguments (since 7.17.0), so `value` only has to live for the call. */
static inline CURLcode ccurl_setopt_string(CURL *h, CURLoption opt, const char *value) {
    return curl_easy_setopt(h, opt, value);
}
static inline CURLcode ccurl_setopt_pointer(CURL *h, CURLoption opt, void *value) {
    return curl_easy_setopt(h, opt, value);
}
/* The list is NOT copied: it must outlive the transfer. */
static inline CURLcode ccurl_setopt_slist(CURL *h, CURLoption opt, struct curl_slist *value) {
    return curl_easy_setopt(h, opt, value);
}
static inline CURLcode ccurl_setopt_read_callback(CURL *h, CURLoption opt, curl_read_callback fn) {
    return curl_easy_setopt(h, opt, fn);
}
/* WRITEFUNCTION and HEADERFUNCTION share this type. */
static inline CURLcode ccurl_setopt_write_callback(CURL *h, CURLoption opt, curl_write_callback fn) {
    return curl_easy_setopt(h, opt, fn);
}
static inline CURLcode ccurl_setopt_seek_callback(CURL *h, CURLoption opt, curl_seek_callback fn) {
    return curl_easy_setopt(h, opt, fn);
}
static inline CURLcode ccurl_setopt_xferinfo_callback(CURL *h, CURLoption opt, curl_xferinfo_callback fn) {
    return curl_easy_setopt(h, opt, fn);
}

/* ---- curl_easy_getinfo ---- */

static inline CURLcode ccurl_getinfo_long(CURL *h, CURLINFO info, long *out) {
    return curl_easy_getinfo(h, info, out);
}
static inline CURLcode ccurl_getinfo_off(CURL *h, CURLINFO info, curl_off_t *out) {
    return curl_easy_getinfo(h, info, out);
}
/* For CURLINFO_PRIVATE. */
static inline CURLcode ccurl_getinfo_pointer(CURL *h, CURLINFO info, void **out) {
    return curl_easy_getinfo(h, info, out);
}

/* ---- macros Swift cannot import ---- */

/* CURLVERSION_NOW names the struct version this header was built with. */
static inline curl_version_info_data *ccurl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}

#endif
