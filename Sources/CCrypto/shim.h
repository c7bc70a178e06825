/*
 * CCrypto: OpenSSL's libcrypto for Swift: RS256 signatures (service-account assertions, V4
 * signed URLs) and SHA-256. libcurl already loads libcrypto, so this adds no runtime dependency.
 * The helpers are static inline so libfbstorage.so exports no extra symbols.
 */
#ifndef FBSTORAGE_CCRYPTO_SHIM_H
#define FBSTORAGE_CCRYPTO_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

/* A private key from PEM text (PKCS#8 "PRIVATE KEY" or PKCS#1 "RSA PRIVATE KEY"); NULL when
 * unreadable. Free it with EVP_PKEY_free. */
static inline EVP_PKEY *ccrypto_private_key_from_pem(const char *pem, int length) {
    BIO *bio = BIO_new_mem_buf(pem, length);
    if (!bio) return NULL;
    EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
    BIO_free(bio);
    ERR_clear_error();   /* nothing of a failed parse is kept on this thread's error queue */
    return key;
}

static inline int ccrypto_is_rsa(const EVP_PKEY *key) {
    return EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA;
}

/* RSASSA-PKCS1-v1_5 with SHA-256 of `data`. `*signature_length` holds the buffer's size on entry
 * (EVP_PKEY_get_size bytes suffice) and the signature's on return. 1 on success. */
static inline int ccrypto_sign_rs256(EVP_PKEY *key, const unsigned char *data, size_t length,
                                     unsigned char *signature, size_t *signature_length) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (!context) return 0;
    int ok = EVP_DigestSignInit(context, NULL, EVP_sha256(), NULL, key) == 1
        && EVP_DigestSign(context, signature, signature_length, data, length) == 1;
    EVP_MD_CTX_free(context);
    ERR_clear_error();
    return ok;
}

static inline int ccrypto_key_size(const EVP_PKEY *key) {
    return EVP_PKEY_get_size(key);
}

/* SHA-256 of `data` into `digest` (32 bytes). 1 on success. */
static inline int ccrypto_sha256(const unsigned char *data, size_t length, unsigned char *digest) {
    unsigned int size = 0;
    return EVP_Digest(data, length, digest, &size, EVP_sha256(), NULL) == 1 && size == 32;
}

#endif
