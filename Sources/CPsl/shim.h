/* libpsl, the Public Suffix List library (Debian's libpsl-dev): which names are public suffixes (co.uk) and which are
   code hosts' user domains (github.io), for the broker's group rule. */
#include <libpsl.h>
