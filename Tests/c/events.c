#define _GNU_SOURCE
/* events.c — see events.h. */
#include "events.h"

#include <string.h>
#include <time.h>

pthread_t main_thread;
__attribute__((constructor)) static void remember_main_thread(void) { main_thread = pthread_self(); }

void event_log_init(event_log *log) {
    memset(log, 0, sizeof *log);
    pthread_mutex_init(&log->lock, NULL);
    pthread_cond_init(&log->changed, NULL);
}

static void record(const fbs_snapshot *s, event_log *log, fbs_task_status observed_as) {
    event e = {0};
    e.observed_as = observed_as;
    e.status = fbs_snapshot_status(s);
    e.bytes = fbs_snapshot_bytes_transferred(s);
    e.total = fbs_snapshot_total_bytes(s);
    e.error_code = fbs_snapshot_error_code(s);
    e.on_main_thread = pthread_equal(pthread_self(), main_thread);
    const fbs_metadata *m = fbs_snapshot_metadata(s);
    if (m && e.status == FBS_TASK_STATUS_SUCCESS) {
        const char *v = fbs_metadata_custom(m, "k");
        const char *ct = fbs_metadata_content_type(m);
        if (v) snprintf(e.custom_value, sizeof e.custom_value, "%s", v);
        if (ct) snprintf(e.content_type, sizeof e.content_type, "%s", ct);
    }
    pthread_mutex_lock(&log->lock);
    e.after_terminal = log->terminal_seen;
    if (e.status == FBS_TASK_STATUS_SUCCESS || e.status == FBS_TASK_STATUS_FAILURE) log->terminal_seen = 1;
    if (log->count < (int)(sizeof log->events / sizeof log->events[0])) log->events[log->count++] = e;
    else log->dropped++;
    pthread_cond_broadcast(&log->changed);
    pthread_mutex_unlock(&log->lock);
}

#define OBSERVER(status_name, st)                                                          \
    static void on_##status_name(const fbs_snapshot *s, void *user) {                     \
        event_log *log = user;                                                             \
        record(s, log, st);                                                                \
        if (log->hook) log->hook(log, s, st);                                              \
    }
OBSERVER(resume, FBS_TASK_STATUS_RESUME)
OBSERVER(progress, FBS_TASK_STATUS_PROGRESS)
OBSERVER(pause, FBS_TASK_STATUS_PAUSE)
OBSERVER(success, FBS_TASK_STATUS_SUCCESS)
OBSERVER(failure, FBS_TASK_STATUS_FAILURE)

static fbs_task_callback callback_for(fbs_task_status st) {
    switch (st) {
    case FBS_TASK_STATUS_RESUME: return on_resume;
    case FBS_TASK_STATUS_PROGRESS: return on_progress;
    case FBS_TASK_STATUS_PAUSE: return on_pause;
    case FBS_TASK_STATUS_SUCCESS: return on_success;
    default: return on_failure;
    }
}

fbs_observer_handle observe(fbs_task *t, fbs_task_status st, event_log *log) {
    fbs_observer_handle h = 0;
    REQUIRE_OK(fbs_task_observe(t, st, callback_for(st), log, &h));
    CHECK(h != 0);
    return h;
}

void observe_all(fbs_task *t, event_log *log) {
    for (int st = FBS_TASK_STATUS_RESUME; st <= FBS_TASK_STATUS_FAILURE; st++)
        observe(t, (fbs_task_status)st, log);
}

static void deadline_after(struct timespec *ts, int timeout_ms) {
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += timeout_ms / 1000;
    ts->tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) { ts->tv_sec++; ts->tv_nsec -= 1000000000L; }
}

int event_log_count(event_log *log, fbs_task_status st) {
    pthread_mutex_lock(&log->lock);
    int n = 0;
    for (int i = 0; i < log->count; i++) n += log->events[i].status == st;
    pthread_mutex_unlock(&log->lock);
    return n;
}

int event_log_wait(event_log *log, fbs_task_status st, int timeout_ms) {
    struct timespec ts;
    deadline_after(&ts, timeout_ms);
    pthread_mutex_lock(&log->lock);
    int seen = 0;
    for (;;) {
        for (int i = 0; i < log->count && !seen; i++) seen = log->events[i].status == st;
        if (seen || pthread_cond_timedwait(&log->changed, &log->lock, &ts) != 0) break;
    }
    for (int i = 0; i < log->count && !seen; i++) seen = log->events[i].status == st;
    pthread_mutex_unlock(&log->lock);
    return seen;
}

void check_event_order(event_log *log, fbs_task_status terminal) {
    pthread_mutex_lock(&log->lock);
    int n = log->count;
    CHECK(n >= 2);
    CHECK_EQ_INT(log->dropped, 0);
    if (n >= 1) CHECK_EQ_INT(log->events[0].status, FBS_TASK_STATUS_RESUME);
    if (n >= 1) CHECK_EQ_INT(log->events[n - 1].status, terminal);
    int terminals = 0, mains = 0, order_ok = 1, bounds_ok = 1, mismatched = 0;
    int64_t last = -1;
    for (int i = 0; i < n; i++) {
        event *e = &log->events[i];
        terminals += e->status == FBS_TASK_STATUS_SUCCESS || e->status == FBS_TASK_STATUS_FAILURE;
        mains += e->on_main_thread;
        mismatched += e->status != e->observed_as;
        /* After a resume the server says how much it kept, which can be less than was sent
         * before the pause (a chunk in flight is lost): monotonic between RESUMEs. */
        if (e->status == FBS_TASK_STATUS_RESUME) last = -1;
        if (e->status == FBS_TASK_STATUS_PROGRESS) {
            if (e->bytes < last) order_ok = 0;
            if (e->total >= 0 && e->bytes > e->total) bounds_ok = 0;
            last = e->bytes;
        }
    }
    CHECK_EQ_INT(terminals, 1);
    CHECK_EQ_INT(mains, 0);
    CHECK_EQ_INT(mismatched, 0);
    CHECK(order_ok);    /* PROGRESS bytes never go down */
    CHECK(bounds_ok);   /* PROGRESS bytes <= total */
    if (!order_ok || !bounds_ok || terminals != 1) {
        static const char *names[] = {"?", "RESUME", "PROGRESS", "PAUSE", "SUCCESS", "FAILURE"};
        printf("      events:");
        for (int i = 0; i < n; i++)
            printf(" %s(%lld/%lld)", names[log->events[i].status % 6], (long long)log->events[i].bytes,
                   (long long)log->events[i].total);
        printf("\n");
    }
    pthread_mutex_unlock(&log->lock);
}

void completion_init(completion *c) {
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->done, NULL);
}

void completion_record(completion *c, int status) {
    const char *msg = fbs_last_error_message();
    pthread_mutex_lock(&c->lock);
    c->calls++;
    c->status = status;
    c->on_main_thread = pthread_equal(pthread_self(), main_thread);
    snprintf(c->message, sizeof c->message, "%s", msg ? msg : "");
    pthread_cond_broadcast(&c->done);
    pthread_mutex_unlock(&c->lock);
}

int completion_wait(completion *c, int timeout_ms) {
    struct timespec ts;
    deadline_after(&ts, timeout_ms);
    pthread_mutex_lock(&c->lock);
    while (c->calls == 0 && pthread_cond_timedwait(&c->done, &c->lock, &ts) == 0) {}
    int called = c->calls > 0;
    pthread_mutex_unlock(&c->lock);
    return called;
}
