#ifndef KEYRINGAUTH_CCURLLOADER_H
#define KEYRINGAUTH_CCURLLOADER_H

/*
 * One HTTP POST through libcurl, loaded with dlopen() at the first request, so that a process that
 * never sends one neither links nor loads libcurl (nor the TLS, Kerberos, LDAP and SSH libraries it
 * pulls in), and a binary built with --static-swift-stdlib needs no -lcurl. Every function here is
 * non-variadic (Swift cannot call curl_easy_setopt), and no curl header is needed to build it.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What kra_http_post returns. */
typedef enum {
    KRA_HTTP_OK = 0,               /* an answer was received (any status) */
    KRA_HTTP_NO_LIBCURL = 1,       /* libcurl could not be loaded: kra_http_error says why */
    KRA_HTTP_TIMED_OUT = 2,        /* the time limit passed */
    KRA_HTTP_CANCELLED = 3,        /* kra_http_exchange_cancel was called */
    KRA_HTTP_TOO_LARGE = 4,        /* the answer was longer than the limit */
    KRA_HTTP_CANNOT_CONNECT = 5,   /* the host was not found or refused the connection */
    KRA_HTTP_TLS = 6,              /* the TLS handshake or the server's certificate failed */
    KRA_HTTP_FAILED = 7,           /* anything else: kra_http_error says what */
    KRA_HTTP_REFUSED_ADDRESS = 8,  /* public-only, and the host's every address was not public: kra_http_error names one */
} kra_http_result;

/* One request's state: its curl handle (kept for the next request, with its connections) and answer. */
typedef struct kra_http_exchange kra_http_exchange;

/* A new exchange, or NULL when out of memory. Loads nothing yet. */
kra_http_exchange *kra_http_exchange_new(void);

/* Frees the exchange and its curl handle. */
void kra_http_exchange_free(kra_http_exchange *exchange);

/* Makes the exchange's current (or next) kra_http_post return KRA_HTTP_CANCELLED soon. Any thread. */
void kra_http_exchange_cancel(kra_http_exchange *exchange);

/*
 * With `public_only` non-zero, the exchange's requests connect only to public unicast addresses: never one of this
 * machine's own interfaces (listed at each connection), nor loopback, private (RFC 1918, fc00::/7), link-local, shared
 * (100.64/10), multicast, documentation, benchmarking or any other special-purpose block of RFC 6890 that is not
 * globally reachable, nor a NAT64, 6to4 or IPv4-mapped form of such an IPv4 address; the check made on the address
 * each connection is made to. Such requests use no proxy (the address checked is the server's own) and no connection
 * opened before. Kept until set again.
 */
void kra_http_exchange_set_public_only(kra_http_exchange *exchange, int public_only);

/* Clears the cancellation and the last answer, so that the exchange can be used again. */
void kra_http_exchange_reuse(kra_http_exchange *exchange);

/*
 * POSTs `body` to `url` (http or https only, no redirects, TLS peer and host verification on) with
 * the `header_count` header lines "Name: value", within `timeout_ms` milliseconds from start to the
 * last byte, reading at most `response_limit` bytes of answer. With `direct` non-zero, no proxy is used
 * whatever the environment says (for loopback hosts); otherwise libcurl's proxy variables apply.
 * Blocks the calling thread.
 */
kra_http_result kra_http_post(
    kra_http_exchange *exchange, const char *url, const char *const *headers, size_t header_count,
    const void *body, size_t body_length, long timeout_ms, size_t response_limit, int direct);

/* kra_http_post's GET: the same limits and verification, no body. */
kra_http_result kra_http_get(
    kra_http_exchange *exchange, const char *url, const char *const *headers, size_t header_count, long timeout_ms,
    size_t response_limit, int direct);

/* The answer's HTTP status, after KRA_HTTP_OK. */
long kra_http_status(const kra_http_exchange *exchange);

/* The answer's body and its length, after KRA_HTTP_OK; valid until the exchange is reused or freed. */
const unsigned char *kra_http_body(const kra_http_exchange *exchange, size_t *length);

/* Why the last request failed, as libcurl or dlopen said it; "" after KRA_HTTP_OK. */
const char *kra_http_error(const kra_http_exchange *exchange);

/* Whether libcurl is loaded in this process (for tests: nothing loads it before the first request). */
int kra_http_libcurl_loaded(void);

#ifdef __cplusplus
}
#endif

#endif
