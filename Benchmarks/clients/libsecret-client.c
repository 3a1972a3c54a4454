/*
 * libsecret-client: a benchmark client that stores and looks up one Secret Service item through
 * libsecret's C "service" API (secret_service_store_sync / secret_service_lookup_sync) on the
 * shared default SecretService proxy, obtained once at start-up with its session opened
 * (SECRET_SERVICE_OPEN_SESSION). It is a reference point for KeyringAuth's own figures.
 *
 * Build (never into the repository) and run, always under the private keyring harness:
 *   cc -O2 -Wall -Wextra -Werror -o /tmp/libsecret-client Benchmarks/clients/libsecret-client.c \
 *       $(pkg-config --cflags --libs libsecret-1)
 *   dbus/with-keyring bash -c 'printf "write 200\nread 200\nquit\n" | /tmp/libsecret-client 1400'
 *
 * Protocol (the same as python-client.py), one line in, one line out, stdout line-buffered:
 *   argv: SIZE                the secret payload's size in bytes (at least 10)
 *   start-up                  one write and one read, then "ready libsecret <version>"
 *   "write N"                 N stores of the item, each with the next counter value
 *   "read N"                  N lookups, each checked against the last payload written
 *   "fill N [FROM]"           N unrelated 64-byte items (schema org.keyringauth.BenchFiller,
 *                             attributes {"filler": "<i>"}, i in FROM..<FROM+N, FROM 0 unless
 *                             given) in the default collection: a batch of a larger fill
 *   "quit" or end of input    exit 0
 * Each command answers "ok <nanoseconds>" (CLOCK_MONOTONIC around the whole loop) or
 * "error <message>". The item: schema org.keyringauth.Bench, attributes {"client": "libsecret"},
 * default collection, content type text/plain; payload = 10-digit zero-padded counter + 'x' padding.
 * The payload is never printed.
 */
#include <libsecret/secret.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const SecretSchema bench_schema = {
    .name = "org.keyringauth.Bench", .flags = SECRET_SCHEMA_NONE,
    .attributes = { { "client", SECRET_SCHEMA_ATTRIBUTE_STRING }, { NULL, 0 } },
};

static const SecretSchema filler_schema = {
    .name = "org.keyringauth.BenchFiller", .flags = SECRET_SCHEMA_NONE,
    .attributes = { { "filler", SECRET_SCHEMA_ATTRIBUTE_STRING }, { NULL, 0 } },
};

static SecretService *service;   /* the shared default service, session opened */
static GHashTable *attributes;   /* {"client": "libsecret"}, made once */
static char *payload;            /* SIZE bytes + NUL: the last payload written */
static size_t size;
static unsigned long long counter;

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Prints "error <message>" on one line (newlines in the message become spaces). */
static void print_error(const char *what, const char *message) {
    char *line = g_strdup_printf("%s%s%s", what, message ? ": " : "", message ? message : "");
    g_strdelimit(line, "\r\n", ' ');
    printf("error %s\n", line);
    g_free(line);
}

/* Reports and frees a GError; returns FALSE so callers can `return fail(...)`. */
static gboolean fail(const char *what, GError *error) {
    print_error(what, error ? error->message : NULL);
    g_clear_error(&error);
    return FALSE;
}

/* Puts the counter's 10 digits at the payload's start. */
static void set_counter(unsigned long long value) {
    counter = value;
    snprintf(payload, 11, "%010llu", counter % 10000000000ULL);
    payload[10] = 'x';   /* snprintf's NUL goes back to padding */
}

/* Stores the next payload (counter + 1); a failed store keeps the previous payload. */
static gboolean write_once(void) {
    GError *error = NULL;
    set_counter(counter + 1);
    SecretValue *value = secret_value_new(payload, (gssize)size, "text/plain");
    gboolean ok = secret_service_store_sync(service, &bench_schema, attributes,
                                            SECRET_COLLECTION_DEFAULT,
                                            "KeyringAuth benchmark (libsecret)", value, NULL, &error);
    secret_value_unref(value);
    if (!ok)
        set_counter(counter - 1);
    return ok ? TRUE : fail("store failed", error);
}

/* Looks the item up and checks it against the last payload written. */
static gboolean read_once(void) {
    GError *error = NULL;
    SecretValue *value = secret_service_lookup_sync(service, &bench_schema, attributes, NULL, &error);
    if (value == NULL)
        return fail(error ? "lookup failed" : "lookup found no item", error);
    gsize length = 0;
    const gchar *secret = secret_value_get(value, &length);
    gboolean same = length == size && memcmp(secret, payload, size) == 0;
    secret_value_unref(value);
    if (!same)
        print_error("lookup returned a secret other than the last one written", NULL);
    return same;
}

/* Creates (or replaces) filler item i: an unrelated 64-byte secret in the default collection. */
static gboolean fill_once(unsigned long i) {
    GError *error = NULL;
    char index[32], label[64], secret[65];
    snprintf(index, sizeof index, "%lu", i);
    snprintf(label, sizeof label, "KeyringAuth benchmark filler %lu", i);
    memset(secret, 'f', 64);
    secret[64] = '\0';
    GHashTable *filler = secret_attributes_build(&filler_schema, "filler", index, NULL);
    SecretValue *value = secret_value_new(secret, 64, "text/plain");
    gboolean ok = secret_service_store_sync(service, &filler_schema, filler, SECRET_COLLECTION_DEFAULT,
                                            label, value, NULL, &error);
    secret_value_unref(value);
    g_hash_table_unref(filler);
    return ok ? TRUE : fail("filler store failed", error);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    char *end = NULL;
    long long requested = argc == 2 ? strtoll(argv[1], &end, 10) : 0;
    if (argc != 2 || *end != '\0' || requested < 10 || requested > 100000000) {
        printf("error usage: libsecret-client SIZE (SIZE in bytes, 10 or more)\n");
        return 2;
    }
    size = (size_t)requested;
    payload = g_malloc(size + 1);
    memset(payload, 'x', size);
    payload[size] = '\0';

    GError *error = NULL;
    service = secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, NULL, &error);
    if (service == NULL) {
        fail("cannot connect to the Secret Service", error);
        return 1;
    }
    attributes = secret_attributes_build(&bench_schema, "client", "libsecret", NULL);
    if (!write_once() || !read_once())   /* warm-up; the error line is already printed */
        return 1;
    printf("ready libsecret %d.%d.%d\n", SECRET_MAJOR_VERSION, SECRET_MINOR_VERSION, SECRET_MICRO_VERSION);

    char *line = NULL;
    size_t capacity = 0;
    while (getline(&line, &capacity, stdin) != -1) {
        char command[16];
        unsigned long n = 0, from = 0;
        char extra;
        g_strchomp(line);
        if (strcmp(line, "quit") == 0)
            break;
        int fields = sscanf(line, "%15s %lu %lu %c", command, &n, &from, &extra);
        gboolean (*step)(void) = strcmp(command, "write") == 0 ? write_once
                               : strcmp(command, "read") == 0 ? read_once : NULL;
        gboolean fill = strcmp(command, "fill") == 0;
        if (fields < 2 || fields > (fill ? 3 : 2) || n == 0 || (step == NULL && !fill)) {
            print_error("unknown command (expected write N, read N, fill N [FROM] or quit)", NULL);
            continue;
        }
        gboolean ok = TRUE;
        long long start = now_ns();
        for (unsigned long i = 0; i < n && ok; i++)
            ok = step ? step() : fill_once(from + i);
        long long elapsed = now_ns() - start;
        if (ok)   /* on failure the error line is already printed */
            printf("ok %lld\n", elapsed);
    }
    free(line);
    g_hash_table_unref(attributes);
    g_object_unref(service);
    g_free(payload);
    return 0;
}
