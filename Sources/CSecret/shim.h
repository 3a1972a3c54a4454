#define SECRET_API_SUBJECT_TO_CHANGE 1 /* the secret_service_*_dbus_path(s) calls in secret-paths.h */
#include <libsecret/secret.h>
/* secret_backend_get: which store libsecret's password API uses (its file keyring in a sandbox). secret.h of
   libsecret 0.20 does not include the header that declares it, although the library exports it. */
#define __SECRET_INSIDE_HEADER__
#include <libsecret/secret-backend.h>
#undef __SECRET_INSIDE_HEADER__
