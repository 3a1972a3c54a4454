/* GLib and GIO without libsecret: checksums, HMAC, GDBus, the main context. */
#include <gio/gio.h>
