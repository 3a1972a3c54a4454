/*
 * See include/CCurlLoader.h. libcurl's ABI (option numbers, info numbers, error codes, callback
 * signatures) is stable across libcurl 7 and 8, so the few values used are written out here instead
 * of including <curl/curl.h>, which would make libcurl's -dev package a build requirement.
 */
#include "CCurlLoader.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

typedef void CURL;
typedef int CURLcode;
struct curl_slist;

/* Option numbers: type base (long 0, pointer 10000, function 20000) + number. */
enum {
    OPT_WRITEDATA = 10001,
    OPT_URL = 10002,
    OPT_PROXY = 10004,
    OPT_ERRORBUFFER = 10010,
    OPT_WRITEFUNCTION = 20011,
    OPT_POSTFIELDS = 10015,
    OPT_HTTPHEADER = 10023,
    OPT_NOPROGRESS = 43,
    OPT_POST = 47,
    OPT_FRESH_CONNECT = 74,
    OPT_FORBID_REUSE = 75,
    OPT_FOLLOWLOCATION = 52,
    OPT_HTTPGET = 80,
    OPT_XFERINFODATA = 10057,
    OPT_POSTFIELDSIZE = 60,
    OPT_SSL_VERIFYPEER = 64,
    OPT_SSL_VERIFYHOST = 81,
    OPT_NOSIGNAL = 99,
    OPT_TIMEOUT_MS = 155,
    OPT_PROTOCOLS = 181,
    OPT_REDIR_PROTOCOLS = 182,
    OPT_XFERINFOFUNCTION = 20219,
    OPT_OPENSOCKETFUNCTION = 20163,
    OPT_OPENSOCKETDATA = 10164,
};
enum { PROTO_HTTP = 1 << 0, PROTO_HTTPS = 1 << 1 };
enum { INFO_RESPONSE_CODE = 0x200000 + 2 };
enum { GLOBAL_DEFAULT = 3 };
enum { ERROR_SIZE = 256 };
enum {
    E_OK = 0,
    E_UNSUPPORTED_PROTOCOL = 1,
    E_COULDNT_RESOLVE_PROXY = 5,
    E_COULDNT_RESOLVE_HOST = 6,
    E_COULDNT_CONNECT = 7,
    E_WRITE_ERROR = 23,
    E_OPERATION_TIMEDOUT = 28,
    E_SSL_CONNECT_ERROR = 35,
    E_ABORTED_BY_CALLBACK = 42,
    E_PEER_FAILED_VERIFICATION = 60,
    E_SSL_CACERT_BADFILE = 77,
};

static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_setopt)(CURL *, int option, ...);
    CURLcode (*easy_getinfo)(CURL *, int info, ...);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static atomic_int loaded;           /* 1 once every symbol is found and curl_global_init succeeded */
static char load_error[512];

static void load(void) {
    /* The OpenSSL build first (Debian's libcurl4), then the GnuTLS and NSS builds of the same ABI. */
    static const char *const names[] = { "libcurl.so.4", "libcurl-gnutls.so.4", "libcurl-nss.so.4" };
    void *library = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && library == NULL; i++)
        library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error,
                 "libcurl is not installed (libcurl.so.4 from Debian's libcurl4 or equivalent): %s", why ? why : "not found");
        return;
    }
#define FIND(field, symbol)                                                                       \
    do {                                                                                          \
        *(void **)(&curl.field) = dlsym(library, symbol);                                         \
        if (curl.field == NULL) {                                                                 \
            snprintf(load_error, sizeof load_error, "the libcurl found lacks %s", symbol);       \
            return;                                                                               \
        }                                                                                         \
    } while (0)
    FIND(global_init, "curl_global_init");
    FIND(easy_init, "curl_easy_init");
    FIND(easy_cleanup, "curl_easy_cleanup");
    FIND(easy_reset, "curl_easy_reset");
    FIND(easy_setopt, "curl_easy_setopt");
    FIND(easy_getinfo, "curl_easy_getinfo");
    FIND(easy_perform, "curl_easy_perform");
    FIND(easy_strerror, "curl_easy_strerror");
    FIND(slist_append, "curl_slist_append");
    FIND(slist_free_all, "curl_slist_free_all");
#undef FIND
    /* Not thread-safe in older libcurl: done once, here, under pthread_once. */
    CURLcode code = curl.global_init(GLOBAL_DEFAULT);
    if (code != E_OK) {
        snprintf(load_error, sizeof load_error, "libcurl could not be initialized: %s", curl.easy_strerror(code));
        return;
    }
    atomic_store(&loaded, 1);
}

int kra_http_libcurl_loaded(void) { return atomic_load(&loaded); }

struct kra_http_exchange {
    CURL *handle;
    atomic_int cancelled;
    long status;
    unsigned char *body;
    size_t length, capacity, limit;
    int too_large;
    int public_only;      /* refuse every address but a public one (kra_http_exchange_set_public_only) */
    int refused_address;  /* the last request was refused by that check */
    char error[ERROR_SIZE > 512 ? ERROR_SIZE : 512];
};

kra_http_exchange *kra_http_exchange_new(void) {
    kra_http_exchange *exchange = calloc(1, sizeof *exchange);
    if (exchange != NULL)
        atomic_init(&exchange->cancelled, 0);
    return exchange;
}

void kra_http_exchange_free(kra_http_exchange *exchange) {
    if (exchange == NULL)
        return;
    if (exchange->handle != NULL)
        curl.easy_cleanup(exchange->handle);
    free(exchange->body);
    free(exchange);
}

void kra_http_exchange_cancel(kra_http_exchange *exchange) { atomic_store(&exchange->cancelled, 1); }

void kra_http_exchange_reuse(kra_http_exchange *exchange) {
    atomic_store(&exchange->cancelled, 0);
    exchange->length = 0;
    exchange->status = 0;
    exchange->too_large = 0;
    exchange->refused_address = 0;
    exchange->error[0] = '\0';
}

void kra_http_exchange_set_public_only(kra_http_exchange *exchange, int public_only) { exchange->public_only = public_only; }

long kra_http_status(const kra_http_exchange *exchange) { return exchange->status; }

const unsigned char *kra_http_body(const kra_http_exchange *exchange, size_t *length) {
    *length = exchange->length;
    return exchange->body;
}

const char *kra_http_error(const kra_http_exchange *exchange) { return exchange->error; }

static size_t on_data(char *data, size_t size, size_t count, void *context) {
    kra_http_exchange *exchange = context;
    size_t bytes = size * count;
    if (bytes > exchange->limit - exchange->length) {
        exchange->too_large = 1;
        return 0;   /* fewer bytes than given: libcurl stops with a write error */
    }
    if (exchange->length + bytes > exchange->capacity) {
        size_t capacity = exchange->capacity ? exchange->capacity : 4096;
        while (capacity < exchange->length + bytes)
            capacity *= 2;
        unsigned char *grown = realloc(exchange->body, capacity);
        if (grown == NULL)
            return 0;
        exchange->body = grown;
        exchange->capacity = capacity;
    }
    memcpy(exchange->body + exchange->length, data, bytes);
    exchange->length += bytes;
    return bytes;
}

/* libcurl calls this often (about once a second when idle, more while data flows): non-zero aborts. */
static int on_progress(void *context, int64_t download_total, int64_t downloaded, int64_t upload_total, int64_t uploaded) {
    (void)download_total, (void)downloaded, (void)upload_total, (void)uploaded;
    kra_http_exchange *exchange = context;
    return atomic_load(&exchange->cancelled);
}

/* libcurl's struct curl_sockaddr: `addr` is followed by room for any address of `addrlen` bytes. */
struct curl_sockaddr {
    int family;
    int socktype;
    int protocol;
    unsigned int addrlen;
    struct sockaddr addr;
};

/*
 * The special-purpose blocks refused, after RFC 6890 and the IANA IPv4 and IPv6 Special-Purpose Address Registries
 * (iana.org/assignments/iana-ipv4-special-registry, iana-ipv6-special-registry): every block whose "Globally
 * Reachable" is False or N/A, and, conservatively, the whole of a block with a few globally reachable entries that name
 * one protocol's service, never a web server (AS112's DNS sinks 192.31.196.0/24, 192.175.48.0/24 and 2620:4f:8000::/48,
 * AMT relays 192.52.193.0/24, the deprecated 6to4 relay anycast 192.88.99.0/24 of RFC 7526, the anycast addresses and
 * ORCHIDv2 identifiers within 192.0.0.0/24 and 2001::/23). Besides: multicast, reserved 240/4 and site-local fec0::/10
 * (RFC 3879), from the address-space registries; the documentation block 3fff::/20 (RFC 9637); and every IPv6 address
 * outside 2000::/3, the only space IANA assigns unicast addresses from (RFC 4291), which covers the rest of ::/8, 100::/8
 * and the SRv6 identifiers 5f00::/16 (RFC 9602). A form that embeds an IPv4 address (IPv4-mapped ::ffff:0:0/96, NAT64
 * 64:ff9b::/96 of RFC 6052, 6to4 2002::/16 of RFC 3056, in bits 16-48) is judged by the IPv4 address it reaches.
 */
struct block {
    uint8_t prefix[16];
    unsigned bits;
    const char *why;         /* what an address in it is (or, for a form that embeds an IPv4 address, what form) */
    unsigned embeds_ipv4_at; /* where the embedded IPv4 address starts, or 0 */
};

static const struct block ipv4_blocks[] = {
    { { 0 }, 8, "not a unicast address (this network, 0.0.0.0/8)", 0 },
    { { 10 }, 8, "private (10.0.0.0/8)", 0 },
    { { 100, 64 }, 10, "shared (carrier-grade NAT, 100.64.0.0/10)", 0 },
    { { 169, 254 }, 16, "link-local (169.254.0.0/16)", 0 },
    { { 172, 16 }, 12, "private (172.16.0.0/12)", 0 },
    { { 192, 0, 0 }, 24, "reserved for protocols (192.0.0.0/24)", 0 },
    { { 192, 0, 2 }, 24, "for documentation (192.0.2.0/24)", 0 },
    { { 192, 31, 196 }, 24, "an AS112 DNS server (192.31.196.0/24)", 0 },
    { { 192, 52, 193 }, 24, "an AMT relay (192.52.193.0/24)", 0 },
    { { 192, 88, 99 }, 24, "the deprecated 6to4 relay anycast (192.88.99.0/24)", 0 },
    { { 192, 168 }, 16, "private (192.168.0.0/16)", 0 },
    { { 192, 175, 48 }, 24, "an AS112 DNS server (192.175.48.0/24)", 0 },
    { { 198, 18 }, 15, "for benchmarking (198.18.0.0/15)", 0 },
    { { 198, 51, 100 }, 24, "for documentation (198.51.100.0/24)", 0 },
    { { 203, 0, 113 }, 24, "for documentation (203.0.113.0/24)", 0 },
    { { 224 }, 4, "not a unicast address (multicast, 224.0.0.0/4)", 0 },
    { { 255, 255, 255, 255 }, 32, "not a unicast address (limited broadcast, 255.255.255.255)", 0 },
    { { 240 }, 4, "not a unicast address (reserved, 240.0.0.0/4)", 0 },
};

/* The first that matches counts: the narrower blocks of 2001::/23 come before it. */
static const struct block ipv6_blocks[] = {
    { { 0 }, 128, "not a unicast address (unspecified, ::)", 0 },
    { { [10] = 0xff, [11] = 0xff }, 96, "an IPv4-mapped form", 12 },
    { { 0, 0x64, 0xff, 0x9b }, 96, "a NAT64 form", 12 },
    { { 0, 0x64, 0xff, 0x9b, 0, 1 }, 48, "local-use NAT64 (64:ff9b:1::/48)", 0 },
    { { 1 }, 64, "discard-only (100::/64)", 0 },
    { { 0x20, 0x01 }, 32, "Teredo (2001::/32)", 0 },
    { { 0x20, 0x01, 0, 2, 0, 0 }, 48, "for benchmarking (2001:2::/48)", 0 },
    { { 0x20, 0x01 }, 23, "reserved for protocols (2001::/23)", 0 },
    { { 0x20, 0x01, 0x0d, 0xb8 }, 32, "for documentation (2001:db8::/32)", 0 },
    { { 0x20, 0x02 }, 16, "a 6to4 form", 2 },
    { { 0x26, 0x20, 0, 0x4f, 0x80, 0 }, 48, "an AS112 DNS server (2620:4f:8000::/48)", 0 },
    { { 0x3f, 0xff }, 20, "for documentation (3fff::/20)", 0 },
    { { 0xfc }, 7, "private (unique local, fc00::/7)", 0 },
    { { 0xfe, 0x80 }, 10, "link-local (fe80::/10)", 0 },
    { { 0xfe, 0xc0 }, 10, "site-local (fec0::/10)", 0 },
    { { 0xff }, 8, "not a unicast address (multicast, ff00::/8)", 0 },
};

/* Whether the address's first `bits` bits are the prefix's. */
static int in_block(const uint8_t *address, const uint8_t *prefix, unsigned bits) {
    unsigned whole = bits / 8, rest = bits % 8;
    if (memcmp(address, prefix, whole) != 0)
        return 0;
    return rest == 0 || ((address[whole] ^ prefix[whole]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

static const struct block *block_of(const uint8_t *address, const struct block *blocks, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (in_block(address, blocks[i].prefix, blocks[i].bits))
            return &blocks[i];
    return NULL;
}

/* The name of the interface of this machine's that has the address (4 bytes for AF_INET, 16 for AF_INET6), or NULL. */
static const char *own_interface(const struct ifaddrs *interfaces, int family, const uint8_t *address) {
    for (const struct ifaddrs *i = interfaces; i != NULL; i = i->ifa_next) {
        if (i->ifa_addr == NULL || i->ifa_addr->sa_family != family)
            continue;
        const void *bytes = family == AF_INET ? (const void *)&((const struct sockaddr_in *)i->ifa_addr)->sin_addr
                                              : (const void *)&((const struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
        if (memcmp(bytes, address, family == AF_INET ? 4 : 16) == 0)
            return i->ifa_name;
    }
    return NULL;
}

/*
 * Whether an IPv4 address (network order) is refused: 1 with what it is in `why`, or 0 for a public address. `own`:
 * this machine's interfaces; loopback is named as such before them.
 */
static int ipv4_refused(const uint8_t *address, const struct ifaddrs *own, char *why, size_t size) {
    const char *interface;
    const struct block *block;
    if (address[0] == 127)
        snprintf(why, size, "loopback (127.0.0.0/8)");
    else if ((interface = own_interface(own, AF_INET, address)) != NULL)
        snprintf(why, size, "this machine's own (interface %s)", interface);
    else if ((block = block_of(address, ipv4_blocks, sizeof ipv4_blocks / sizeof ipv4_blocks[0])) != NULL)
        snprintf(why, size, "%s", block->why);
    else
        return 0;
    return 1;
}

/* ipv4_refused for an IPv6 address. */
static int ipv6_refused(const uint8_t *address, const struct ifaddrs *own, char *why, size_t size) {
    static const uint8_t loopback[16] = { [15] = 1 };
    const char *interface;
    const struct block *block = block_of(address, ipv6_blocks, sizeof ipv6_blocks / sizeof ipv6_blocks[0]);
    if (memcmp(address, loopback, 16) == 0) {
        snprintf(why, size, "loopback (::1)");
    } else if ((interface = own_interface(own, AF_INET6, address)) != NULL) {
        snprintf(why, size, "this machine's own (interface %s)", interface);
    } else if (block != NULL && block->embeds_ipv4_at != 0) {
        const uint8_t *embedded = address + block->embeds_ipv4_at;
        char what[256], text[INET_ADDRSTRLEN] = "?";
        if (!ipv4_refused(embedded, own, what, sizeof what))
            return 0;   /* reaches a public IPv4 address */
        inet_ntop(AF_INET, embedded, text, sizeof text);
        snprintf(why, size, "%s of %s, which is %s", block->why, text, what);
    } else if (block != NULL) {
        snprintf(why, size, "%s", block->why);
    } else if ((address[0] & 0xe0) != 0x20) {
        snprintf(why, size, "not a global unicast address (outside 2000::/3)");
    } else {
        return 0;
    }
    return 1;
}

/*
 * Whether the address is refused, with what it is in `why`: every address but a public one, and every address of this
 * machine's own interfaces, listed here, at each connection (interfaces come and go). When they cannot be listed, an
 * address that is otherwise public is refused too.
 */
static int refused(const struct curl_sockaddr *address, char *why, size_t size) {
    const uint8_t *bytes;
    if (address->family == AF_INET && address->addrlen >= sizeof(struct sockaddr_in)) {
        bytes = (const uint8_t *)&((const struct sockaddr_in *)&address->addr)->sin_addr;
    } else if (address->family == AF_INET6 && address->addrlen >= sizeof(struct sockaddr_in6)) {
        bytes = ((const struct sockaddr_in6 *)&address->addr)->sin6_addr.s6_addr;
    } else {
        snprintf(why, size, "not an internet address");
        return 1;
    }
    struct ifaddrs *own = NULL;
    int listed = getifaddrs(&own) == 0;
    int error = listed ? 0 : errno;
    int refuse = address->family == AF_INET ? ipv4_refused(bytes, listed ? own : NULL, why, size)
                                            : ipv6_refused(bytes, listed ? own : NULL, why, size);
    if (listed)
        freeifaddrs(own);
    if (!refuse && !listed) {
        snprintf(why, size, "unchecked: this machine's own addresses could not be listed (errno %d%s)", error,
                 error == EMFILE || error == ENFILE ? ", too many open files" : error == ENOMEM ? ", out of memory" : "");
        refuse = 1;
    }
    return refuse;
}

/*
 * libcurl's CURLOPT_OPENSOCKETFUNCTION: called with the very address each connection is about to be made to (after
 * the name was resolved, for every address tried), so that a name whose addresses change between look-ups cannot
 * pass the check with one and connect to another.
 */
static int on_open_socket(void *context, int purpose, struct curl_sockaddr *address) {
    (void)purpose;
    kra_http_exchange *exchange = context;
    char why[384];
    if (refused(address, why, sizeof why)) {
        char text[INET6_ADDRSTRLEN] = "?";
        const void *bytes = address->family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)&address->addr)->sin6_addr
                                                         : (const void *)&((struct sockaddr_in *)&address->addr)->sin_addr;
        if (address->family == AF_INET || address->family == AF_INET6)
            inet_ntop(address->family, bytes, text, sizeof text);
        exchange->refused_address = 1;
        snprintf(exchange->error, sizeof exchange->error, "the host's address %s is %s, and only public addresses are reached", text, why);
        return -1;   /* CURL_SOCKET_BAD: libcurl tries the next address, or fails with "couldn't connect" */
    }
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

static kra_http_result fail(kra_http_exchange *exchange, kra_http_result result, const char *message) {
    if (exchange->error[0] == '\0')
        snprintf(exchange->error, sizeof exchange->error, "%s", message);
    return result;
}

/* A POST of `body`, or a GET when `body` is NULL; `direct`: never through a proxy. */
static kra_http_result perform(
    kra_http_exchange *exchange, const char *url, const char *const *headers, size_t header_count,
    const void *body, size_t body_length, long timeout_ms, size_t response_limit, int direct) {
    pthread_once(&load_once, load);
    if (!atomic_load(&loaded))
        return fail(exchange, KRA_HTTP_NO_LIBCURL, load_error);
    if (atomic_load(&exchange->cancelled))
        return fail(exchange, KRA_HTTP_CANCELLED, "cancelled");
    if (exchange->handle == NULL) {
        exchange->handle = curl.easy_init();
        if (exchange->handle == NULL)
            return fail(exchange, KRA_HTTP_FAILED, "libcurl could not make a handle");
    } else {
        curl.easy_reset(exchange->handle);   /* keeps the handle's open connections for reuse */
    }
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < header_count; i++) {
        struct curl_slist *appended = curl.slist_append(list, headers[i]);
        if (appended == NULL) {
            curl.slist_free_all(list);
            return fail(exchange, KRA_HTTP_FAILED, "out of memory for the request's headers");
        }
        list = appended;
    }
    exchange->limit = response_limit;
    exchange->refused_address = 0;
    exchange->error[0] = '\0';
    CURL *handle = exchange->handle;
    char curl_error[ERROR_SIZE];
    curl_error[0] = '\0';
    curl.easy_setopt(handle, OPT_URL, url);
    curl.easy_setopt(handle, OPT_PROTOCOLS, (long)(PROTO_HTTP | PROTO_HTTPS));
    curl.easy_setopt(handle, OPT_REDIR_PROTOCOLS, (long)(PROTO_HTTP | PROTO_HTTPS));
    curl.easy_setopt(handle, OPT_FOLLOWLOCATION, 0L);
    curl.easy_setopt(handle, OPT_SSL_VERIFYPEER, 1L);
    curl.easy_setopt(handle, OPT_SSL_VERIFYHOST, 2L);
    curl.easy_setopt(handle, OPT_NOSIGNAL, 1L);   /* no SIGALRM for name look-ups in a threaded process */
    curl.easy_setopt(handle, OPT_TIMEOUT_MS, timeout_ms);
    if (direct || exchange->public_only)
        curl.easy_setopt(handle, OPT_PROXY, "");   /* "" turns off the proxies of http_proxy, ALL_PROXY, … */
    if (exchange->public_only) {
        /* Every connection new and checked: none opened earlier to another address is reused. */
        curl.easy_setopt(handle, OPT_OPENSOCKETFUNCTION, on_open_socket);
        curl.easy_setopt(handle, OPT_OPENSOCKETDATA, (void *)exchange);
        curl.easy_setopt(handle, OPT_FRESH_CONNECT, 1L);
        curl.easy_setopt(handle, OPT_FORBID_REUSE, 1L);
    }
    if (body == NULL) {
        curl.easy_setopt(handle, OPT_HTTPGET, 1L);
    } else {
        curl.easy_setopt(handle, OPT_POST, 1L);
        curl.easy_setopt(handle, OPT_POSTFIELDS, body_length ? body : "");
        curl.easy_setopt(handle, OPT_POSTFIELDSIZE, (long)body_length);
    }
    curl.easy_setopt(handle, OPT_HTTPHEADER, list);
    curl.easy_setopt(handle, OPT_WRITEFUNCTION, on_data);
    curl.easy_setopt(handle, OPT_WRITEDATA, (void *)exchange);
    curl.easy_setopt(handle, OPT_NOPROGRESS, 0L);
    curl.easy_setopt(handle, OPT_XFERINFOFUNCTION, on_progress);
    curl.easy_setopt(handle, OPT_XFERINFODATA, (void *)exchange);
    curl.easy_setopt(handle, OPT_ERRORBUFFER, curl_error);
    CURLcode code = curl.easy_perform(handle);
    /* Neither the list nor the error buffer outlives this call: the handle must not keep them. */
    curl.easy_setopt(handle, OPT_HTTPHEADER, (void *)NULL);
    curl.easy_setopt(handle, OPT_ERRORBUFFER, (void *)NULL);
    curl.slist_free_all(list);
    if (code == E_OK) {
        long status = 0;
        curl.easy_getinfo(handle, INFO_RESPONSE_CODE, &status);
        exchange->status = status;
        return KRA_HTTP_OK;
    }
    if (exchange->refused_address && code == E_COULDNT_CONNECT)
        return KRA_HTTP_REFUSED_ADDRESS;   /* its error says which address, and why */
    snprintf(exchange->error, sizeof exchange->error, "%s", curl_error[0] ? curl_error : curl.easy_strerror(code));
    switch (code) {
    case E_ABORTED_BY_CALLBACK:
        return KRA_HTTP_CANCELLED;
    case E_WRITE_ERROR:
        return exchange->too_large ? KRA_HTTP_TOO_LARGE : KRA_HTTP_FAILED;
    case E_OPERATION_TIMEDOUT:
        return KRA_HTTP_TIMED_OUT;
    case E_COULDNT_RESOLVE_PROXY:
    case E_COULDNT_RESOLVE_HOST:
    case E_COULDNT_CONNECT:
        return KRA_HTTP_CANNOT_CONNECT;
    case E_SSL_CONNECT_ERROR:
    case E_PEER_FAILED_VERIFICATION:
    case E_SSL_CACERT_BADFILE:
        return KRA_HTTP_TLS;
    default:
        return KRA_HTTP_FAILED;
    }
}

kra_http_result kra_http_post(
    kra_http_exchange *exchange, const char *url, const char *const *headers, size_t header_count,
    const void *body, size_t body_length, long timeout_ms, size_t response_limit, int direct) {
    return perform(exchange, url, headers, header_count, body ? body : "", body_length, timeout_ms, response_limit, direct);
}

kra_http_result kra_http_get(
    kra_http_exchange *exchange, const char *url, const char *const *headers, size_t header_count, long timeout_ms,
    size_t response_limit, int direct) {
    return perform(exchange, url, headers, header_count, NULL, 0, timeout_ms, response_limit, direct);
}
