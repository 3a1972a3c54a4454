#ifndef KEYRING_AUTH_CPROCESSCONTROL_H
#define KEYRING_AUTH_CPROCESSCONTROL_H

/*
 * What a process does with itself that Swift cannot call directly. prctl(2)'s dumpable flag, behind
 * non-variadic functions (prctl itself is variadic): a process that is not dumpable leaves no core
 * file, and other processes of its user can neither ptrace it nor read its memory through /proc: for
 * the CLI while it holds a secret. And glibc's malloc_trim(3), which <malloc.h> declares and Swift's
 * Glibc module does not, and mallopt(3)'s arena cap: for the broker, a long-running service.
 */

/* Sets the calling process's dumpable flag (0 or 1); returns 0, or -1 with errno set. */
int kra_set_dumpable(int dumpable);

/* The calling process's dumpable flag (0, 1 or 2), or -1 with errno set. */
int kra_dumpable(void);

/* Gives the free pages of every malloc arena back to the system (malloc_trim(0)); returns 1 when some
 * memory was released, else 0. */
int kra_return_free_memory(void);

/* Caps how many arenas glibc's malloc makes (mallopt(M_ARENA_MAX)); by default up to eight per core, each
 * keeping the free memory of its busiest moment. Call before threads start. Returns 1 on success, else 0. */
int kra_limit_malloc_arenas(int count);

#endif
