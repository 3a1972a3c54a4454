#ifndef KEYRING_AUTH_CMAINQUEUE_H
#define KEYRING_AUTH_CMAINQUEUE_H

/*
 * The dispatch main queue, run by a main loop other than dispatch_main() or Foundation's RunLoop: the two
 * calls libdispatch exports for a run loop to do so (Foundation's CFRunLoop uses the same on Linux), behind
 * functions Swift can call. libdispatch pokes the handle, an eventfd, whenever work is queued on the main queue.
 */

/* The main queue's wake-up file descriptor (readable while work is queued); made on first use. */
int kra_main_queue_handle(void);

/* Consumes the handle's wake-ups, then runs every block queued on the main queue so far, in order. Must be
 * called on the main thread, in a program that never called dispatch_main(). */
void kra_main_queue_drain(void);

/* 1 on the process's main thread (the thread dispatch binds the main queue to), 0 on any other. */
int kra_is_main_thread(void);

#endif
