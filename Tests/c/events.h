/* events.h — records task events and completion callbacks for the tests. */
#ifndef FBS_TEST_EVENTS_H
#define FBS_TEST_EVENTS_H

#include <pthread.h>

#include "harness.h"

typedef struct event {
    fbs_task_status observed_as;   /* the status the observer was registered for */
    fbs_task_status status;        /* the snapshot's status */
    int64_t bytes, total;
    int error_code;
    int on_main_thread;
    int after_terminal;            /* an event delivered after SUCCESS/FAILURE */
    char custom_value[64];         /* SUCCESS: metadata custom "k" if any */
    char content_type[64];         /* SUCCESS: metadata content type if any */
} event;

typedef struct event_log {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    event events[4096];
    int count, dropped;
    int terminal_seen;
    /* Optional hook run inside the callback (after recording), e.g. to pause or cancel. */
    void (*hook)(struct event_log *log, const fbs_snapshot *s, fbs_task_status observed_as);
    fbs_task *task;                /* for hooks */
    void *user;                    /* for hooks */
} event_log;

extern pthread_t main_thread;   /* the thread running the test */

void event_log_init(event_log *log);
/* Observes every status (RESUME..FAILURE) with the same log. */
void observe_all(fbs_task *t, event_log *log);
/* Observes one status; returns the handle. */
fbs_observer_handle observe(fbs_task *t, fbs_task_status st, event_log *log);
/* Waits until an event with this snapshot status is recorded; 1 if seen. */
int event_log_wait(event_log *log, fbs_task_status st, int timeout_ms);
int event_log_count(event_log *log, fbs_task_status st);
/* Checks order: RESUME first, PROGRESS monotonic (between RESUMEs) and <= total, exactly one
 * terminal event, last; all on the callback thread. */
void check_event_order(event_log *log, fbs_task_status terminal);

/* A one-shot completion record for _async operations. */
typedef struct completion {
    pthread_mutex_t lock;
    pthread_cond_t done;
    int calls, status, on_main_thread;
    char message[256];
    char text[1024];      /* string results, or a description of the result */
    size_t length;        /* data results */
    int64_t number;       /* counts etc. */
} completion;

void completion_init(completion *c);
/* Records a call (thread, status, last error message); the caller fills result fields. */
void completion_record(completion *c, int status);
int completion_wait(completion *c, int timeout_ms);   /* 1 when called at least once */

#endif
