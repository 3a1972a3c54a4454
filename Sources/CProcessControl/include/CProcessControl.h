#ifndef KEYRING_AUTH_CPROCESSCONTROL_H
#define KEYRING_AUTH_CPROCESSCONTROL_H

/*
 * prctl(2)'s dumpable flag, behind non-variadic functions Swift can call (prctl itself is variadic).
 * A process that is not dumpable leaves no core file, and other processes of its user can neither
 * ptrace it nor read its memory through /proc: for the CLI while it holds a secret.
 */

/* Sets the calling process's dumpable flag (0 or 1); returns 0, or -1 with errno set. */
int kra_set_dumpable(int dumpable);

/* The calling process's dumpable flag (0, 1 or 2), or -1 with errno set. */
int kra_dumpable(void);

#endif
