#define SECRET_API_SUBJECT_TO_CHANGE 1 /* the secret_service_*_dbus_path(s) calls in secret-paths.h */
#include <libsecret/secret.h>
