/* Signs in through KeyringAuth's broker from C, with GDBus (GLib's gio-2.0):
 *
 *   cc -o broker-client broker-client.c $(pkg-config --cflags --libs gio-2.0)
 *   broker-client API_KEY APP_ID PROJECT_ID GROUP
 *
 * Watches the group, uses its user when one is signed in (else signs in anonymously), prints who and the
 * length of a fresh ID token, then waits until another user (or nobody) is signed in to the group, prints it, and exits.
 * Output lines: "user UID", "token N", "watching", "changed UID" ("changed none" when signed out).
 * With FIREBASE_AUTH_EMULATOR_HOST set (127.0.0.1:9099), the broker sends this app's calls to that Auth emulator
 * (a sandboxed app needs --share=network for it).
 */
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>

#define NAME "io.github.keyringauth.Broker1"
#define PATH "/io/github/keyringauth/Broker1"

static GVariant *app_dictionary(const char *api_key, const char *app_id, const char *project_id) {
    GVariantBuilder builder;
    g_variant_builder_init(&builder, G_VARIANT_TYPE("a{sv}"));
    g_variant_builder_add(&builder, "{sv}", "apiKey", g_variant_new_string(api_key));
    g_variant_builder_add(&builder, "{sv}", "appID", g_variant_new_string(app_id));
    g_variant_builder_add(&builder, "{sv}", "projectID", g_variant_new_string(project_id));
    const char *emulator = g_getenv("FIREBASE_AUTH_EMULATOR_HOST");
    if (emulator != NULL && *emulator != '\0') {
        g_variant_builder_add(&builder, "{sv}", "emulatorHost", g_variant_new_string(emulator));
    }
    return g_variant_builder_end(&builder);
}

/* Calls METHOD with PARAMETERS (floating, consumed); the reply, or NULL with the error printed. */
static GVariant *call(GDBusConnection *bus, const char *method, GVariant *parameters, const char *reply_type) {
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_sync(bus, NAME, PATH, NAME, method, parameters, G_VARIANT_TYPE(reply_type),
                                                  G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
    if (reply == NULL) {
        gchar *name = g_dbus_error_get_remote_error(error);
        g_dbus_error_strip_remote_error(error);
        printf("error %s %s\n", name ? name : "unknown", error->message);
        g_free(name);
        g_error_free(error);
    }
    return reply;
}

/* The uid in a user dictionary, or "none". */
static const char *uid_of(GVariant *user) {
    const char *uid = NULL;
    return g_variant_lookup(user, "uid", "&s", &uid) ? uid : "none";
}

/* The uid this client signed in or found; a change to another ends the wait. */
static char *current_uid = NULL;

static void on_user_changed(GDBusConnection *bus, const char *sender, const char *path, const char *interface,
                            const char *signal, GVariant *parameters, gpointer loop) {
    (void)bus, (void)sender, (void)path, (void)interface, (void)signal;
    GVariant *user = g_variant_get_child_value(parameters, 2);
    const char *uid = uid_of(user);
    if (current_uid != NULL && g_strcmp0(uid, current_uid) != 0) {
        printf("changed %s\n", uid);
        g_main_loop_quit(loop);
    }
    g_variant_unref(user);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: broker-client API_KEY APP_ID PROJECT_ID GROUP\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    GError *error = NULL;
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
    if (bus == NULL) {
        fprintf(stderr, "broker-client: no session bus: %s\n", error->message);
        g_error_free(error);
        return 1;
    }
    GVariant *app = g_variant_ref_sink(app_dictionary(argv[1], argv[2], argv[3]));
    const char *group = argv[4];
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    g_dbus_connection_signal_subscribe(bus, NAME, NAME, "UserChanged", PATH, NULL, G_DBUS_SIGNAL_FLAGS_NONE,
                                       on_user_changed, loop, NULL);
    int status = 1;
    GVariant *reply = call(bus, "Watch", g_variant_new("(@a{sv}s)", app, group), "()");
    if (reply == NULL) goto done;
    g_variant_unref(reply);

    GVariant *user = NULL;
    reply = call(bus, "GetUser", g_variant_new("(@a{sv}s)", app, group), "(a{sv})");
    if (reply == NULL) goto done;
    g_variant_get(reply, "(@a{sv})", &user);
    g_variant_unref(reply);
    if (g_variant_n_children(user) == 0) {
        g_variant_unref(user);
        reply = call(bus, "SignInAnonymously", g_variant_new("(@a{sv}s)", app, group), "(a{sv})");
        if (reply == NULL) goto done;
        g_variant_get(reply, "(@a{sv})", &user);
        g_variant_unref(reply);
    }
    current_uid = g_strdup(uid_of(user));
    printf("user %s\n", current_uid);
    g_variant_unref(user);

    reply = call(bus, "GetIDToken", g_variant_new("(@a{sv}sb)", app, group, FALSE), "(s)");
    if (reply == NULL) goto done;
    const char *token = NULL;
    g_variant_get(reply, "(&s)", &token);
    printf("token %zu\n", strlen(token));
    g_variant_unref(reply);

    printf("watching\n");
    g_main_loop_run(loop);
    status = 0;
done:
    g_free(current_uid);
    g_main_loop_unref(loop);
    g_variant_unref(app);
    g_object_unref(bus);
    return status;
}
