#include "CMainQueue.h"

#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

/* libdispatch's run-loop interface (private/queue_private.h); dispatch_runloop_handle_t is an int on Linux. */
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

int kra_main_queue_handle(void) {
    return _dispatch_get_main_queue_handle_4CF();
}

void kra_main_queue_drain(void) {
    eventfd_t wakeUps;
    /* Non-blocking: fails with EAGAIN when there was nothing to consume, which changes nothing. Consumed
     * before the drain, so that a block queued during the drain wakes the loop again. */
    (void)eventfd_read(_dispatch_get_main_queue_handle_4CF(), &wakeUps);
    _dispatch_main_queue_callback_4CF(0);
}

int kra_is_main_thread(void) {
    return syscall(SYS_gettid) == getpid();
}
